from django.apps import AppConfig


class CommerceConfig(AppConfig):
    name = "tulia.commerce"
    label = "commerce"
    verbose_name = "Catalog, orders and offers"
    default_auto_field = "django.db.models.BigAutoField"
