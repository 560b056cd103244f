"""Row-Level Security for every tenant-owned table.

Applied after every `migrate` (post_migrate), idempotently, for each concrete subclass
of `TenantOwnedModel`, so a table added by any later app is covered without anyone
having to remember. FORCE makes the policies apply to the table owner too.

`migrate` runs as the owner role (tulia/db_roles.py). After it, the runtime role is
granted row privileges and the operator key is (re)stored where only the owner can read
it. The same signal fires after the test suite's flush, which runs as the runtime role:
then there is nothing it may change, and nothing is tried.
"""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.db.models import Model

from tulia.db_roles import runtime_privileges

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
    # The sub-select makes the operator check an InitPlan: once per query, not per row.
    visible = "tenant_id = tulia_current_tenant() OR (SELECT tulia_operator())"
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
        cursor.execute("SELECT current_user")
        me = cursor.fetchone()[0]
        for model in tenant_owned_models():
            table = model._meta.db_table
            if _owner_of(cursor, table) != me:
                continue
            extra = getattr(model, "rls_extra_read", None)
            for statement in _policy_sql(table, extra):
                cursor.execute(statement)
        runtime = settings.DATABASE_RUNTIME_ROLE
        if runtime and runtime != me and _owner_of(cursor, "django_migrations") == me:
            _grant_runtime(cursor, connection.ops.quote_name(runtime))
            _store_operator_key(cursor)


def _owner_of(cursor: CursorWrapper, table: str) -> str | None:
    cursor.execute(
        "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = to_regclass(quote_ident(%s))",
        [table],
    )
    row = cursor.fetchone()
    return row[0] if row else None


def _grant_runtime(cursor: CursorWrapper, role: str) -> None:
    cursor.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    cursor.execute(f"GRANT {runtime_privileges()} ON ALL TABLES IN SCHEMA public TO {role}")
    cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    cursor.execute(f"REVOKE ALL ON SCHEMA tulia_private FROM {role}")


def _store_operator_key(cursor: CursorWrapper) -> None:
    cursor.execute(
        "INSERT INTO tulia_private.operator_key (id, secret) VALUES (1, %s)"
        " ON CONFLICT (id) DO UPDATE SET secret = EXCLUDED.secret",
        [settings.TULIA_OPERATOR_KEY],
    )
