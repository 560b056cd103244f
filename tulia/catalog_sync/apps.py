from django.apps import AppConfig


class CatalogSyncConfig(AppConfig):
    name = "tulia.catalog_sync"
    label = "catalog_sync"
    verbose_name = "Store sync (Shopify, WooCommerce)"

    def ready(self) -> None:
        from tulia.catalog_sync import signals  # noqa: F401 - connects the receivers
