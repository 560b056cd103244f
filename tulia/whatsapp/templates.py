"""A shop's WhatsApp templates: create at Twilio, submit for approval, sync, pick one.

Every call takes the tenant explicitly and works on that tenant's rows only. Twilio
calls happen outside any row lock; each step saves what Twilio answered, so a step
that failed half-way is simply run again (create skips a template that has a sid).
"""

from __future__ import annotations

import re
from uuid import UUID

from django.utils import timezone

from tenants.accessors import active_senders, get_owned, get_tenant
from tenants.context import operator_context, tenant_context
from tenants.errors import NotFound
from tulia.whatsapp.content_api import Account, content_client
from tulia.whatsapp.models import MessageTemplate
from tulia.whatsapp.purposes import PURPOSES
from tulia.whatsapp.starter import STARTER_BODIES, starter_body

Status = MessageTemplate.Status
# Meta may still change its mind about these: a sync asks again.
OPEN_STATUSES = (Status.PENDING, Status.APPROVED, Status.PAUSED)


def _account(tenant_id: UUID) -> Account:
    senders = active_senders(tenant_id)
    if not senders:
        raise NotFound("this shop has no active WhatsApp sender to own its templates")
    sender = senders[0]
    return Account(sender.twilio_account_sid, sender.twilio_auth_token.reveal())


def _save(template: MessageTemplate, **fields: object) -> MessageTemplate:
    for name, value in fields.items():
        setattr(template, name, value)
    with tenant_context(template.tenant_id):
        MessageTemplate.objects.filter(pk=template.pk).update(**fields)
    return template


def create_at_twilio(tenant_id: UUID | str, template_id: int) -> MessageTemplate:
    """Create the Content resource for a draft (a no-op once it has a Content SID)."""
    template = get_owned(MessageTemplate, tenant_id, template_id)
    if template.content_sid:
        return template
    account = _account(template.tenant_id)
    examples = {str(k): str(v) for k, v in template.examples.items()}
    sid = content_client().create(
        account, template.name, template.language, template.body, examples
    )
    return _save(template, content_sid=sid, account_sid=account.sid, status=Status.UNSUBMITTED)


def submit(tenant_id: UUID | str, template_id: int) -> MessageTemplate:
    """Ask WhatsApp to approve the template (creating it at Twilio first if needed)."""
    template = create_at_twilio(tenant_id, template_id)
    if template.status not in (Status.UNSUBMITTED, Status.REJECTED):
        return template
    approval = content_client().submit(
        _account(template.tenant_id), template.content_sid, template.name, template.category
    )
    now = timezone.now()
    return _save(
        template,
        status=approval.status,
        rejection_reason=approval.rejection_reason,
        submitted_at=now,
        synced_at=now,
    )


def sync(tenant_id: UUID | str, template_id: int) -> MessageTemplate:
    """Fetch the approval status (and any rejection reason) from Twilio."""
    template = get_owned(MessageTemplate, tenant_id, template_id)
    if not template.content_sid:
        return template
    approval = content_client().fetch(_account(template.tenant_id), template.content_sid)
    return _save(
        template,
        status=approval.status,
        rejection_reason=approval.rejection_reason,
        synced_at=timezone.now(),
    )


def sync_open(tenant_id: UUID | str) -> int:
    """Sync every template whose status may still change; how many were synced."""
    with tenant_context(tenant_id) as tid:
        ids = list(
            MessageTemplate.objects.filter(tenant_id=tid, status__in=OPEN_STATUSES)
            .exclude(content_sid="")
            .values_list("pk", flat=True)
        )
    for template_id in ids:
        sync(tid, template_id)
    return len(ids)


def tenants_with_open_templates() -> list[UUID]:
    """Shops with a submitted template whose status may still change (for the beat)."""
    with operator_context("template sync: find shops with templates under review"):
        rows = MessageTemplate.objects.filter(status__in=(Status.PENDING, Status.PAUSED))
        return list(rows.exclude(content_sid="").values_list("tenant_id", flat=True).distinct())


def approved_template(
    tenant_id: UUID | str, purpose: str, languages: list[str]
) -> MessageTemplate | None:
    """The approved template for the purpose in the first language that has one."""
    with tenant_context(tenant_id) as tid:
        found = {
            row.language: row
            for row in MessageTemplate.objects.filter(
                tenant_id=tid, purpose=purpose, status=Status.APPROVED
            ).exclude(content_sid="")
        }
    return next((found[lang] for lang in languages if lang in found), None)


def _template_name(slug: str, purpose: str, language: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", f"{slug}_{purpose}_{language}".lower())[:64]


def install_starter_templates(tenant_id: UUID | str, *, submit_now: bool = True) -> list[int]:
    """Give the shop the platform's utility templates in en and sw; safe to run again.

    Existing rows (matched by name and language) are left as they are: an owner may
    have edited or resubmitted them.
    """
    tenant = get_tenant(tenant_id)
    ids = []
    with tenant_context(tenant.pk) as tid:
        for purpose, bodies in STARTER_BODIES.items():
            examples = dict(enumerate(PURPOSES[purpose].examples, start=1))
            for language in bodies:
                template, _ = MessageTemplate.objects.get_or_create(
                    tenant_id=tid,
                    name=_template_name(tenant.slug, purpose, language),
                    language=language,
                    defaults={
                        "purpose": purpose,
                        "category": MessageTemplate.Category.UTILITY,
                        "body": starter_body(purpose, language, tenant.name),
                        "examples": {str(k): v for k, v in examples.items()},
                    },
                )
                ids.append(template.pk)
    if submit_now:
        for template_id in ids:
            submit(tid, template_id)
    return ids
