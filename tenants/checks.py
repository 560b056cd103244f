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


@register(Tags.database)
def app_role_does_not_own_tenant_tables(databases: Any = None, **_: Any) -> list[CheckMessage]:
    """A table's owner can switch its RLS off: the app must connect as another role."""
    from tenants.rls import tenant_owned_models

    tables = [model._meta.db_table for model in tenant_owned_models()]
    problems: list[CheckMessage] = []
    for alias in databases or []:
        with connections[alias].cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_class WHERE relname = ANY(%s)"
                " AND relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)",
                [tables],
            )
            owned = cursor.fetchone()[0]
        if owned:
            problems.append(
                Error(
                    f"database '{alias}' connects as the owner of {owned} tenant tables,"
                    " which could switch row-level security off",
                    hint="Run the app as the runtime role and migrate as the owner role "
                    "(DATABASE_OWNER_URL); deploy/SCALING.md shows the one-time hand-over.",
                    id="tenants.E002",
                )
            )
    return problems
