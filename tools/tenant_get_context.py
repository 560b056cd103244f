"""tenant_get_context: the shop's persona and settings the conversation needs."""

from __future__ import annotations

from typing import Any

from tenants.accessors import get_tenant
from tools.contract import Tool, ToolInput, ToolOutput
from tulia.storefront.links import catalog_link


class TenantGetContextInput(ToolInput):
    pass


class TenantGetContextOutput(ToolOutput):
    tenant_id: str
    name: str
    plan: str
    bot_name: str
    bot_intro: str
    tone_style: str
    default_language: str
    allowed_languages: list[str]
    max_chattiness_level: int
    catalog_link_base: str
    payment_methods: list[str]
    timezone: str
    escalation_rules: dict[str, Any]
    handoff: dict[str, Any]
    compliance: dict[str, Any]  # opt-out words and notices: the conversation honours them


def run(data: TenantGetContextInput) -> TenantGetContextOutput:
    tenant = get_tenant(data.tenant_id)
    return TenantGetContextOutput(
        tenant_id=str(tenant.id),
        name=tenant.name,
        plan=tenant.plan,
        bot_name=tenant.bot_name,
        bot_intro=tenant.bot_intro,
        tone_style=tenant.tone_style,
        default_language=tenant.default_language,
        allowed_languages=list(tenant.allowed_languages or [tenant.default_language]),
        max_chattiness_level=tenant.max_chattiness_level,
        catalog_link_base=catalog_link(tenant),
        payment_methods=list(tenant.payment_methods),
        timezone=tenant.timezone,
        escalation_rules=dict(tenant.escalation_rules),
        handoff=dict(tenant.handoff),
        compliance=tenant.compliance_settings.model_dump(mode="json"),
    )


TOOL = Tool(
    name="tenant_get_context",
    description="Get the shop's name, bot persona, languages, catalog link and payment methods.",
    input_model=TenantGetContextInput,
    output_model=TenantGetContextOutput,
    run=run,
)
