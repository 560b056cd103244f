"""Row-Level Security for every tenant-owned table.

Applied after every `migrate` (post_migrate), idempotently, for each concrete subclass
of `TenantOwnedModel`, so a table added by any later app is covered without anyone
having to remember. FORCE makes the policies apply to the table owner too, which is the
role the application connects as.
"""

from __future__ import annotations

from django.apps import apps
from django.db import connection
from django.db.models import Model

POLICY_NAME = "tenant_isolation"


def tenant_owned_models() -> list[type[Model]]:
    from tenants.models import TenantOwnedModel

    return [
        model
        for model in apps.get_models()
        if issubclass(model, TenantOwnedModel) and not model._meta.proxy and model._meta.managed
    ]


def _policy_sql(table: str, extra_read: str | None) -> list[str]:
    quoted = connection.ops.quote_name(table)
    visible = "tenant_id = tulia_current_tenant() OR tulia_operator()"
    readable = f"{visible} OR ({extra_read})" if extra_read else visible
    return [
        f"ALTER TABLE {quoted} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {quoted} FORCE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS {POLICY_NAME} ON {quoted}",
        f"DROP POLICY IF EXISTS {POLICY_NAME}_read ON {quoted}",
        f"CREATE POLICY {POLICY_NAME} ON {quoted} USING ({visible}) WITH CHECK ({visible})",
        # Permissive policies are OR-ed: the extra clause widens reads only.
        *(
            [f"CREATE POLICY {POLICY_NAME}_read ON {quoted} FOR SELECT USING ({readable})"]
            if extra_read
            else []
        ),
    ]


def apply_row_level_security(**_: object) -> None:
    with connection.cursor() as cursor:
        for model in tenant_owned_models():
            extra = getattr(model, "rls_extra_read", None)
            for statement in _policy_sql(model._meta.db_table, extra):
                cursor.execute(statement)
