"""Tenant and customer settings as ConversationState fields (the "tenant context" step).

The graph will get these from the tenant_get_context / customer_get_or_create tools;
this mapping is the one place that decides how model fields become state fields, so
the tools and tests share it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from journeys.state import ConversationState, Lang
from tulia.storefront.links import catalog_link

if TYPE_CHECKING:
    from tenants.models import Customer, Tenant


def tenant_fields(tenant: Tenant) -> ConversationState:
    compliance = tenant.compliance_settings.model_dump(mode="json")
    return ConversationState(
        tenant_name=tenant.name,
        bot_name=tenant.bot_name or None,
        bot_intro=tenant.bot_intro or None,
        tone_style=tenant.tone_style,
        default_language=cast(Lang, tenant.default_language),
        allowed_languages=list(tenant.allowed_languages) or [tenant.default_language],
        max_chattiness_level=tenant.max_chattiness_level,
        catalog_link_base=catalog_link(tenant),
        payments_enabled=dict.fromkeys(tenant.payment_methods, True),
        compliance=compliance,
        handoff=tenant.handoff_settings.model_dump(mode="json"),
    )


def customer_fields(customer: Customer) -> ConversationState:
    """Blank language preference means unknown (None), never the tenant default."""
    return ConversationState(
        customer_id=str(customer.pk),
        customer_language_pref=cast(Lang, customer.language_preference) or None,
        marketing_opt_in=customer.marketing_opt_in,
        notification_prefs={"notifications": customer.notifications_opt_in},
    )
