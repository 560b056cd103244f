from django.apps import AppConfig


class JourneysConfig(AppConfig):
    name = "journeys"
    label = "journeys"
    verbose_name = "Conversation engine"
    default_auto_field = "django.db.models.BigAutoField"
