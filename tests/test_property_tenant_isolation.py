"""Feature: tulia-ai-v2-langgraph-refactor, Property 3: Tenant Isolation Enforcement.

For any set of tenants, customers and operations, an operation performed for tenant T
reads and changes only T's rows: through the named accessors, through the ORM inside
T's context, and through raw SQL inside T's context (RLS).
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID, uuid4

import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tenants.accessors import NotFound, find_customer_by_phone, get_customer
from tenants.context import tenant_context
from tenants.models import Customer, Tenant
from tenants.services import create_tenant, get_or_create_customer, record_consent
from tests.hypothesis_profiles import examples

pytestmark = pytest.mark.django_db

# Allocated Kenyan mobile ranges (libphonenumber): 07x, 0100-0108 and 011x. The prefix
# and the subscriber digits together always make the 10-digit national form.
MOBILE_PREFIXES = ["070", "071", "072", "073", "074", "079", "0100", "0110"]
subscriber = st.tuples(st.sampled_from(MOBILE_PREFIXES), st.integers(0, 9_999_999)).map(
    lambda parts: f"{parts[0]}{parts[1]:07d}"[:10]
)
operation = st.sampled_from(["get_by_id", "find_by_phone", "orm_list", "raw_sql", "consent"])


@dataclass
class World:
    tenants: list[Tenant]
    owner: dict[int, UUID]  # customer id → tenant id
    phones: dict[int, str]


def _build_world(customers_per_tenant: list[list[str]]) -> World:
    tenants, owner, phones = [], {}, {}
    for phones_of_tenant in customers_per_tenant:
        shop = create_tenant(slug=f"p3-{uuid4().hex[:12]}", name="Property shop")
        tenants.append(shop)
        for phone in phones_of_tenant:
            customer, _ = get_or_create_customer(shop.id, phone)
            owner[customer.id] = shop.id
            phones[customer.id] = customer.phone_e164
    return World(tenants, owner, phones)


def _visible_ids(tenant_id: UUID, op: str, world: World) -> set[int]:
    """Customer ids that `op`, performed as tenant_id, can observe."""
    seen: set[int] = set()
    if op in {"get_by_id", "find_by_phone", "consent"}:
        for customer_id, phone in world.phones.items():
            try:
                if op == "get_by_id":
                    seen.add(get_customer(tenant_id, customer_id).id)
                elif op == "find_by_phone":
                    seen.add(find_customer_by_phone(tenant_id, phone).id)
                else:
                    record_consent(
                        tenant_id, customer_id, kind="marketing", action="granted", source="api"
                    )
                    seen.add(customer_id)
            except (NotFound, Customer.DoesNotExist):
                continue
        return seen
    with tenant_context(tenant_id):
        if op == "orm_list":
            return set(Customer.objects.values_list("id", flat=True))
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM tenants_customer")
            return {row[0] for row in cursor.fetchall()}


@settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    customers=st.lists(st.lists(subscriber, max_size=4), min_size=2, max_size=4),
    actor=st.integers(min_value=0, max_value=3),
    op=operation,
)
def test_operations_for_a_tenant_touch_only_that_tenant(customers, actor, op) -> None:
    """Feature: tulia-ai-v2-langgraph-refactor, Property 3: Tenant Isolation Enforcement."""
    world = _build_world(customers)
    acting = world.tenants[actor % len(world.tenants)].id
    own = {cid for cid, tid in world.owner.items() if tid == acting}
    assert _visible_ids(acting, op, world) == own
