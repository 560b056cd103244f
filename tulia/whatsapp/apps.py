from django.apps import AppConfig


class WhatsappConfig(AppConfig):
    name = "tulia.whatsapp"
    label = "whatsapp"
    verbose_name = "WhatsApp gateway"
    default_auto_field = "django.db.models.BigAutoField"
