"""/shop/<slug>/: a prefix that cannot collide with /admin, /api or the webhooks."""

from django.urls import path

from tulia.storefront import views

app_name = "storefront"

urlpatterns = [
    path("<slug:slug>/", views.catalog_view, name="catalog"),
    path("<slug:slug>/p/<int:item_id>/", views.product_view, name="product"),
    path("<slug:slug>/p/<int:item_id>/order/", views.order_view, name="order"),
    path("<slug:slug>/img/<int:item_id>-<str:size>.webp", views.image_view, name="image"),
    path("<slug:slug>/info/", views.about_view, name="about"),
    path("<slug:slug>/qr.svg", views.qr_view, name="qr"),
]
