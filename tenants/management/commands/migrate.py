"""`migrate`, run as the owner role when one is configured (tulia/db_roles.py).

Tables and RLS functions belong to whoever creates them; creating them as the owner keeps
the runtime role from ever being able to alter them.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrate

from tulia.db_roles import as_owner


class Command(DjangoMigrate):
    def handle(self, *args: Any, **options: Any) -> None:
        with as_owner(options["database"]):
            super().handle(*args, **options)
