from django.apps import AppConfig


class ReturnsConfig(AppConfig):
    """Returns and refunds: tenant policy, pure eligibility, request flow."""

    name = "tulia.returns"
    label = "returns"
    default_auto_field = "django.db.models.BigAutoField"
