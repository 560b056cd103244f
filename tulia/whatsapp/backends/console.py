"""The demo/dev backend: logs the message instead of calling Twilio.

The stored OutboundMessage is marked sent with a local sid, so `manage.py chat` and the
admin show exactly what a customer would have received.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime

from tulia.whatsapp.backends.base import Listed, OutgoingMessage, SendResult

logger = logging.getLogger("tulia.whatsapp.console")


class ConsoleBackend:
    name = "console"

    def send(self, message: OutgoingMessage) -> SendResult:
        logger.info(
            "whatsapp to=%s from=%s request_id=%s content_sid=%s variables=%s\n%s",
            message.to_address,
            message.from_address,
            message.request_id,
            message.content_sid or "-",
            message.content_variables or "-",
            message.body,
        )
        return SendResult(sid="SM" + uuid.uuid4().hex, status="sent")

    def sent_since(self, route: OutgoingMessage, since: datetime) -> list[Listed]:
        """The console keeps no list: nothing it "sent" can be found again."""
        return []
