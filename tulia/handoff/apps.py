from django.apps import AppConfig


class HandoffConfig(AppConfig):
    """Human handoff: conversation status lifecycle, tickets, assignment, agent desk."""

    name = "tulia.handoff"
    label = "handoff"
    default_auto_field = "django.db.models.BigAutoField"
