"""Tenant REST API for the agent desk (mounted under /api/v1/handoff/)."""

from django.urls import URLPattern, URLResolver, path

from tulia.handoff import api

app_name = "handoff-api"

urlpatterns: list[URLPattern | URLResolver] = [
    path("tickets/", api.QueueView.as_view(), name="queue"),
    path("tickets/<int:ticket_id>/", api.TicketView.as_view(), name="ticket"),
    path(
        "tickets/<int:ticket_id>/<slug:action>/",
        api.TicketActionView.as_view(),
        name="ticket-action",
    ),
    path("canned-replies/", api.CannedRepliesView.as_view(), name="canned-replies"),
]
