from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    name = "tulia.console"
    label = "console"
    verbose_name = "Shop console"
