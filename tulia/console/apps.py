from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class ConsoleConfig(AppConfig):
    name = "tulia.console"
    label = "console"
    verbose_name = "Shop console"


class ShopAdminConfig(AdminConfig):
    """django.contrib.admin, with tulia.console.site.ShopAdminSite as `admin.site`."""

    default_site = "tulia.console.site.ShopAdminSite"
