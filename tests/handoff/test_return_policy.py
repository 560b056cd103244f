"""The tenant's stored return policy: validated, versioned, read into the pure policy."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from tenants.context import tenant_context
from tulia.returns.facts import policy_for
from tulia.returns.models import ReturnPolicy

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "rules",
    [
        {"shoes": {"return_days": -1}},
        {"shoes": {"return_days": "7"}},
        {"shoes": {"windows": 7}},
        ["shoes"],
    ],
)
def test_malformed_category_rules_are_refused(tenant, rules) -> None:
    with pytest.raises(ValidationError, match="category_rules"):
        ReturnPolicy(tenant=tenant, category_rules=rules).full_clean()


def test_every_save_bumps_the_version_named_in_verdicts(tenant) -> None:
    with tenant_context(tenant.id) as tid:
        stored = ReturnPolicy.objects.create(
            tenant_id=tid, return_days=20, category_rules={"food": {"returnable": False}}
        )
        stored.refund_days = 3
        stored.save()
        policy = policy_for(tid, "Africa/Nairobi")
    assert (policy.version, policy.return_days, policy.refund_days) == ("2", 20, 3)
    assert policy.categories["food"].returnable is False
    assert "imevunjika" in policy.damage_words  # blank list → built-in en/sw words


def test_stranger_reads_the_default_policy_not_this_tenants(tenant, stranger) -> None:
    with tenant_context(tenant.id) as tid:
        ReturnPolicy.objects.create(tenant_id=tid, return_days=3)
    with tenant_context(stranger.id) as sid:
        assert policy_for(sid, "Africa/Nairobi").version == "default"
