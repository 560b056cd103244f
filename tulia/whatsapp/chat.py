"""Chatting with a tenant's bot from a terminal, through the real signed webhook.

Each line becomes a Twilio-shaped inbound form signed with the sender's auth token and
posted to the inbound webhook: in-process through Django's test client (turn and
delivery run inline, no worker needed) or over HTTP to a running server (its worker
takes the turn). The replies shown are the outbound rows the delivery path sent.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.test import Client
from django.urls import reverse
from twilio.request_validator import RequestValidator

from tenants.accessors import active_senders, find_customer_by_phone
from tenants.context import tenant_context
from tenants.errors import NotFound
from tenants.models import Tenant, WhatsAppSender
from tulia.conversations.models import OutboundMessage
from tulia.whatsapp.emulator import inbound_params, signed_post

SENT = ("queued", "accepted", "sent", "delivered", "read")
# "/image" and friends let a terminal user try the non-text paths.
SHORTCUTS: dict[str, dict[str, str]] = {
    "/image": {"NumMedia": "1", "MediaContentType0": "image/jpeg", "MessageType": "image"},
    "/voice": {"NumMedia": "1", "MediaContentType0": "audio/ogg", "MessageType": "audio"},
    "/sticker": {"NumMedia": "1", "MediaContentType0": "image/webp", "MessageType": "sticker"},
    "/document": {"NumMedia": "1", "MediaContentType0": "application/pdf"},
    "/location": {"Latitude": "-1.286389", "Longitude": "36.817223", "MessageType": "location"},
}


@dataclass
class ChatSession:
    tenant: Tenant
    sender: WhatsAppSender
    phone: str
    url: str | None = None  # None: in-process
    last_seen_id: int = 0

    @classmethod
    def open(cls, slug: str, phone: str, url: str | None = None) -> ChatSession:
        tenant = Tenant.objects.filter(slug=slug).first()
        if tenant is None:
            raise NotFound(f"no tenant with slug {slug!r}")
        senders = active_senders(tenant.id)
        if not senders:
            raise NotFound(f"tenant {slug!r} has no active WhatsApp sender")
        session = cls(tenant=tenant, sender=senders[0], phone=phone, url=url)
        session.last_seen_id = session._latest_id()
        return session

    def form_for(self, line: str) -> dict[str, str]:
        word = line.strip().split(" ", 1)[0]
        extra = dict(SHORTCUTS.get(word, {}))
        if extra.get("NumMedia") == "1":
            extra["MediaUrl0"] = f"https://api.twilio.com/emulated/{word.strip('/')}"
        body = "" if word in SHORTCUTS else line
        return inbound_params(
            self.sender.twilio_account_sid,
            self.sender.phone_e164,
            self.phone,
            body,
            ProfileName="Terminal",
            **extra,
        )

    def send(self, line: str, wait: float = 15.0) -> list[str]:
        """Post one line as a signed webhook; the bot's replies to it."""
        form = self.form_for(line)
        token = self.sender.twilio_auth_token.reveal()
        status = self._post_http(form, token) if self.url else self._post_local(form, token)
        if status != 200:
            return [f"[webhook answered HTTP {status}]"]
        return self._await_replies(wait if self.url else 0.0)

    def _post_local(self, form: dict[str, str], token: str) -> int:
        path = reverse("whatsapp:inbound")
        url = f"{settings.PUBLIC_BASE_URL}{path}"
        signature = RequestValidator(token).compute_signature(url, form)
        with eager_tasks():
            response = Client().post(path, form, headers={"X-Twilio-Signature": signature})
        return int(response.status_code)

    def _post_http(self, form: dict[str, str], token: str) -> int:
        # Signed for the configured public URL, as Twilio would, and sent to --url.
        path = reverse("whatsapp:inbound")
        public_url = f"{settings.PUBLIC_BASE_URL}{path}"
        url = f"{(self.url or '').rstrip('/')}{path}"
        return int(signed_post(url, token, form, public_url=public_url).status_code)

    def _await_replies(self, wait: float) -> list[str]:
        deadline = time.monotonic() + wait
        replies = self._new_replies()
        while not replies and time.monotonic() < deadline:
            time.sleep(0.2)
            replies = self._new_replies()
        return replies

    def _rows(self) -> list[tuple[int, str]]:
        try:
            customer = find_customer_by_phone(self.tenant.id, self.phone)
        except NotFound:
            return []
        with tenant_context(self.tenant.id):
            rows = OutboundMessage.objects.filter(
                conversation__customer=customer, status__in=SENT, id__gt=self.last_seen_id
            ).order_by("id")
            return list(rows.values_list("id", "body"))

    def _latest_id(self) -> int:
        rows = self._rows()
        return rows[-1][0] if rows else 0

    def _new_replies(self) -> list[str]:
        rows = self._rows()
        if rows:
            self.last_seen_id = rows[-1][0]
        return [body for _, body in rows]


@contextmanager
def eager_tasks() -> Iterator[None]:
    """Run the turn and delivery tasks inline, for a terminal chat with no worker."""
    from tulia.celery import app

    previous = app.conf.task_always_eager
    app.conf["task_always_eager"] = True
    try:
        yield
    finally:
        app.conf["task_always_eager"] = previous
