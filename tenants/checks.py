"""System checks that refuse a database setup under which RLS would not protect anything."""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Error, Tags, register
from django.db import connections


@register(Tags.database)
def app_role_cannot_bypass_rls(databases: Any = None, **_: Any) -> list[CheckMessage]:
    """Superusers and BYPASSRLS roles ignore row-level security: refuse to run as one."""
    problems: list[CheckMessage] = []
    for alias in databases or []:
        with connections[alias].cursor() as cursor:
            cursor.execute(
                "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
            )
            row = cursor.fetchone()
        if row and any(row):
            problems.append(
                Error(
                    f"database '{alias}' connects as a role that bypasses row-level security",
                    hint="Connect as a role created with NOSUPERUSER NOBYPASSRLS "
                    "(the embedded setup creates one named 'tulia').",
                    id="tenants.E001",
                )
            )
    return problems
