from django.apps import AppConfig


class StorefrontConfig(AppConfig):
    """The hosted mobile catalog at /shop/<slug>/, wired into the chat both ways."""

    name = "tulia.storefront"
    label = "storefront"
    verbose_name = "Shop page"
    default_auto_field = "django.db.models.BigAutoField"
