from django.apps import AppConfig


class CommerceConfig(AppConfig):
    name = "tulia.commerce"
    label = "commerce"
    verbose_name = "Catalog, orders and offers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tulia.commerce import signals  # noqa: F401 - connects the indexing receivers
