"""The demo shops' return policies, as their own policy documents state them.

kb/demo_docs/<shop>/returns.*.md are what the bot quotes for "what is your return
policy?"; the policy below is what it decides with, so the two must agree. Safe to run
again: the row is updated in place (and its version bumped).
"""

from __future__ import annotations

from typing import Any

from tenants.context import tenant_context
from tenants.models import Tenant
from tulia.returns.models import ReturnPolicy

FRESH = {"return_days": 1, "refund_days": 1}  # "within 24 hours of delivery"

POLICIES: dict[str, dict[str, Any]] = {
    # 7 days from delivery; socks, insoles and shoe-care products never come back.
    "kicks-nairobi": {
        "return_days": 7,
        "refund_days": 7,
        "non_returnable_skus": ["KN-AC0", "KN-AC1", "KN-AC2", "KN-AC4"],
        "category_rules": {},
        "refund_delivery_fee": False,  # "The delivery fee is not refunded"
        "exchange_days": 14,  # "Size exchanges are free within 14 days of delivery"
    },
    # Packaged goods 3 days; fresh produce, milk, eggs, meat and fish 24 hours.
    "mama-mboga": {
        "return_days": 3,
        "refund_days": 3,
        "non_returnable_skus": [],
        "refund_delivery_fee": False,  # "refund the price of that item"
        "category_rules": dict.fromkeys(
            ("mboga", "matunda", "maziwa-na-mayai", "nyama-na-samaki"), FRESH
        ),
    },
}


def seed_return_policies(tenants: list[Tenant]) -> None:
    for tenant in tenants:
        fields = POLICIES.get(tenant.slug)
        if fields is None:
            continue
        with tenant_context(tenant.id) as tid:
            policy = ReturnPolicy.objects.filter(tenant_id=tid).first() or ReturnPolicy(
                tenant_id=tid
            )
            for name, value in fields.items():
                setattr(policy, name, value)
            policy.full_clean(exclude=["tenant"])
            policy.save()
