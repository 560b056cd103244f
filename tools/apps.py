from django.apps import AppConfig


class ToolsConfig(AppConfig):
    name = "tools"
    label = "tools"
    verbose_name = "Tool calls"
    default_auto_field = "django.db.models.BigAutoField"
