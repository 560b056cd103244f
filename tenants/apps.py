from django.apps import AppConfig
from django.db.models.signals import post_migrate


class TenantsConfig(AppConfig):
    name = "tenants"
    verbose_name = "Shops and customers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from tenants import checks  # noqa: F401 - registers the system checks
        from tenants.rls import apply_row_level_security

        post_migrate.connect(
            apply_row_level_security, sender=self, dispatch_uid="tenants.apply_rls"
        )
