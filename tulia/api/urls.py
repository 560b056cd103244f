"""The tenant REST API (v1). Later issues register their resources on the same router."""

from django.urls import URLPattern, URLResolver, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import SimpleRouter

from kb.api import DocumentViewSet
from tulia.api import views
from tulia.api.conversations import ConversationViewSet
from tulia.campaigns.api import CampaignViewSet, MessagingSettingsView
from tulia.returns.api import ReturnRequestViewSet

router = SimpleRouter()
router.register("catalog/items", views.CatalogItemViewSet, basename="catalog-item")
router.register("orders", views.OrderViewSet, basename="order")
router.register("offers", views.OfferViewSet, basename="offer")
router.register("kb/documents", DocumentViewSet, basename="kb-document")
router.register("campaigns", CampaignViewSet, basename="campaign")
router.register("conversations", ConversationViewSet, basename="conversation")
router.register("returns", ReturnRequestViewSet, basename="return-request")

urlpatterns: list[URLPattern | URLResolver] = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("messaging/settings/", MessagingSettingsView.as_view(), name="messaging-settings"),
    *router.urls,
]
