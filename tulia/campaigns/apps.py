from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "tulia.campaigns"
    label = "campaigns"
    verbose_name = "Campaigns and nudges"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tulia.campaigns import optouts  # noqa: F401 - connects the opt-out counter
