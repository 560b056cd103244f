from django.apps import AppConfig


class MeteringConfig(AppConfig):
    name = "tulia.metering"
    label = "metering"
    verbose_name = "Usage and cost"
    default_auto_field = "django.db.models.BigAutoField"
