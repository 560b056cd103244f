from django.apps import AppConfig


class ConversationsConfig(AppConfig):
    name = "tulia.conversations"
    label = "conversations"
    verbose_name = "Conversations"
    default_auto_field = "django.db.models.BigAutoField"
