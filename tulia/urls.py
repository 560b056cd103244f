"""Top-level URL map."""

from django.contrib import admin
from django.urls import include, path

from tulia import health
from tulia.observability.views import metrics_view

handler404 = "tulia.api.errors.not_found"
handler500 = "tulia.api.errors.server_error"

# The admin site is tulia.console.site.ShopAdminSite (its titles, home and menu).

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("whatsapp/", include("tulia.whatsapp.urls")),
    path("payments/", include("payments.urls")),
    path("api/v1/handoff/", include("tulia.handoff.api_urls")),
    path("api/v1/", include("tulia.api.urls")),
    path("shop/", include("tulia.storefront.urls")),
    path("store-sync/", include("tulia.catalog_sync.urls")),
]
