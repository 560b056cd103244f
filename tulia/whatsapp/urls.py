from django.urls import URLPattern, URLResolver, path

from tulia.whatsapp import views

app_name = "whatsapp"

urlpatterns: list[URLPattern | URLResolver] = [
    path("inbound", views.inbound, name="inbound"),
    path("status", views.status_callback, name="status"),
]
