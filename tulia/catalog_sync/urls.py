from django.urls import path

from tulia.catalog_sync import views

app_name = "catalog_sync"

urlpatterns = [
    path("<str:tenant_id>/<str:token>/shopify", views.shopify_webhook, name="shopify_webhook"),
    path(
        "<str:tenant_id>/<str:token>/woocommerce",
        views.woocommerce_webhook,
        name="woocommerce_webhook",
    ),
]
