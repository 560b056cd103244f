"""Demo data: every demo shop gets the starter WhatsApp templates, submitted."""

from __future__ import annotations

import logging

from tenants.errors import NotFound
from tenants.models import Tenant
from tulia.whatsapp.backends import SendError
from tulia.whatsapp.templates import install_starter_templates

logger = logging.getLogger(__name__)


def seed_templates(tenants: list[Tenant]) -> None:
    for tenant in tenants:
        try:
            install_starter_templates(tenant.pk)
        except (SendError, NotFound) as exc:  # Twilio unreachable, or no sender: drafts remain
            logger.warning("%s: starter templates left as drafts: %s", tenant.slug, exc)
