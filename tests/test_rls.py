"""Row-Level Security underneath the application: raw SQL cannot cross tenants."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.utils import ProgrammingError

from tenants.context import TenantContextError, operator_context, tenant_context
from tenants.models import Tenant
from tenants.rls import tenant_owned_models
from tenants.services import add_staff_member, get_or_create_customer, record_consent

pytestmark = pytest.mark.django_db


def _populate(tenant: Tenant) -> None:
    customer, _ = get_or_create_customer(tenant.id, "0712000111")
    record_consent(tenant.id, customer.id, kind="marketing", action="granted", source="admin")
    add_staff_member(
        tenant.id, username=f"owner-{tenant.slug}", password="x-Pass-1234", role="owner"
    )


def _raw_rows(table: str) -> list[tuple[str]]:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT tenant_id::text FROM "{table}"')
        return cursor.fetchall()


def test_every_tenant_owned_table_forces_rls() -> None:
    tables = [model._meta.db_table for model in tenant_owned_models()]
    assert len(tables) >= 4
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relname = ANY(%s)"
            " AND relrowsecurity AND relforcerowsecurity",
            [tables],
        )
        forced = {row[0] for row in cursor.fetchall()}
    assert forced == set(tables)


def test_app_role_is_not_a_superuser_and_cannot_bypass_rls() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)


def test_raw_select_in_tenant_context_sees_only_that_tenant(tenant, stranger) -> None:
    _populate(tenant)
    _populate(stranger)
    for model in tenant_owned_models():
        table = model._meta.db_table
        with tenant_context(tenant.id):
            seen = {row[0] for row in _raw_rows(table)}
        assert str(stranger.id) not in seen, table
        assert seen <= {str(tenant.id)}, table


def test_raw_select_without_context_sees_nothing(tenant) -> None:
    _populate(tenant)
    for model in tenant_owned_models():
        assert _raw_rows(model._meta.db_table) == []


def test_insert_of_other_tenants_row_is_refused(tenant, stranger) -> None:
    with (
        tenant_context(tenant.id),
        pytest.raises(ProgrammingError, match="row-level security"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO tenants_customer (tenant_id, phone_e164, display_name,"
            " language_preference, marketing_opt_in, notifications_opt_in, tags, first_seen)"
            " VALUES (%s, '+254700000001', '', '', false, true, '{}', now())",
            [str(stranger.id)],
        )


def test_update_cannot_move_a_row_to_another_tenant(tenant, stranger) -> None:
    customer, _ = get_or_create_customer(tenant.id, "0712000222")
    with (
        tenant_context(tenant.id),
        pytest.raises(ProgrammingError, match="row-level security"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "UPDATE tenants_customer SET tenant_id = %s WHERE id = %s",
            [str(stranger.id), customer.id],
        )


def test_context_is_restored_after_the_block(tenant) -> None:
    _populate(tenant)
    with tenant_context(tenant.id):
        assert _raw_rows("tenants_customer")
    assert _raw_rows("tenants_customer") == []


def _delete_then_fail(tenant: Tenant) -> None:
    with tenant_context(tenant.id), connection.cursor() as cursor:
        cursor.execute("DELETE FROM tenants_customer")
        cursor.execute("SELECT 1/0")


def test_a_nested_context_of_the_same_tenant_is_one_savepoint_and_rolls_back_alone(
    tenant, django_assert_num_queries
) -> None:
    _populate(tenant)
    with tenant_context(tenant.id):
        with django_assert_num_queries(2), tenant_context(tenant.id):  # SAVEPOINT, RELEASE
            pass
        with pytest.raises(DatabaseError):
            _delete_then_fail(tenant)
        assert _raw_rows("tenants_customer") == [(str(tenant.id),)]
    assert _raw_rows("tenants_customer") == []


def test_switching_tenant_inside_a_context_is_refused(tenant, stranger) -> None:
    with tenant_context(tenant.id), pytest.raises(TenantContextError), tenant_context(stranger.id):
        pass


def test_missing_tenant_is_refused() -> None:
    with pytest.raises(TenantContextError), tenant_context(""):
        pass


def test_operator_context_sees_every_tenant(tenant, stranger) -> None:
    _populate(tenant)
    _populate(stranger)
    with operator_context("test"):
        seen = {row[0] for row in _raw_rows("tenants_customer")}
    assert seen == {str(tenant.id), str(stranger.id)}


# --- The runtime role cannot switch RLS off (issue 15) --------------------------------


def _refused(sql: str) -> None:
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql)


def test_tests_run_as_the_runtime_role_and_tables_belong_to_the_owner() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, pg_get_userbyid(relowner) FROM pg_class"
            " WHERE relname = 'tenants_customer'"
        )
        me, owner = cursor.fetchone()
    assert me == settings.DATABASE_RUNTIME_ROLE
    assert owner != me


@pytest.mark.parametrize("value", ["on", "true", "1", ""])
def test_setting_operator_by_hand_reveals_nothing(tenant, stranger, value) -> None:
    _populate(tenant)
    _populate(stranger)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('tulia.operator', %s, true)", [value])
        cursor.execute("SELECT tulia_operator()")
        assert cursor.fetchone() == (False,)
        assert _raw_rows("tenants_customer") == []


@pytest.mark.django_db(transaction=True)  # two real transactions, not savepoints of one
def test_a_claim_from_an_earlier_operator_transaction_does_not_replay(tenant) -> None:
    _populate(tenant)
    with operator_context("test: capture the claim"), connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('tulia.operator')")
        claim = cursor.fetchone()[0]
        assert _raw_rows("tenants_customer")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('tulia.operator', %s, true)", [claim])
        assert _raw_rows("tenants_customer") == []


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE tenants_customer DISABLE ROW LEVEL SECURITY",
        "ALTER TABLE tenants_customer NO FORCE ROW LEVEL SECURITY",
        "DROP POLICY tenant_isolation ON tenants_customer",
        "CREATE POLICY sneak ON tenants_customer USING (true)",
        "CREATE OR REPLACE FUNCTION tulia_operator() RETURNS boolean"
        " LANGUAGE sql AS $$ SELECT true $$",
        "CREATE OR REPLACE FUNCTION tulia_current_tenant() RETURNS uuid"
        " LANGUAGE sql AS $$ SELECT NULL::uuid $$",
        "SELECT secret FROM tulia_private.operator_key",
        "SET ROLE tulia_owner",
        "CREATE FUNCTION public.sneak() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$",
    ],
)
def test_runtime_role_cannot_alter_what_rls_rests_on(sql: str) -> None:
    _refused(sql)
