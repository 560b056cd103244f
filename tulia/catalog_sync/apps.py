from django.apps import AppConfig


class CatalogSyncConfig(AppConfig):
    name = "tulia.catalog_sync"
    label = "catalog_sync"
    verbose_name = "Store sync (Shopify, WooCommerce)"
