"""The tenant API with the documents resource registered, as tulia/api/urls.py will."""

from django.urls import include, path
from rest_framework.routers import SimpleRouter

from kb.api import DocumentViewSet

router = SimpleRouter()
router.register("kb/documents", DocumentViewSet, basename="kb-document")
urlpatterns = [path("api/v1/", include(router.urls))]
