"""Signed webhook deliveries from an emulated store, over real HTTP to our URLs."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
from dataclasses import dataclass, field
from typing import Any

import httpx

logger = logging.getLogger("tulia.emulators")


def sign(secret: str, body: bytes) -> str:
    return base64.b64encode(hmac.new(secret.encode(), body, hashlib.sha256).digest()).decode()


@dataclass(frozen=True)
class Delivery:
    url: str
    body: bytes
    headers: dict[str, str]

    def post(self) -> int:
        """Send it (again): a platform retry is this very request once more."""
        try:
            answer = httpx.post(self.url, content=self.body, headers=self.headers, timeout=10)
        except httpx.HTTPError:
            logger.warning("emulated webhook to %s failed", self.url)
            return 0
        return answer.status_code


@dataclass
class Outbox:
    """Deliveries made; with `drop` set, they are recorded but never sent (lost webhooks)."""

    drop: bool = False
    sent: list[Delivery] = field(default_factory=list)
    dropped: list[Delivery] = field(default_factory=list)

    def deliver(
        self, url: str, payload: dict[str, Any], headers: dict[str, str], signed: tuple[str, str]
    ) -> Delivery:
        """POST `payload` to `url`, signed into header `signed[0]` with secret `signed[1]`."""
        body = json.dumps(payload).encode()
        header, secret = signed
        delivery = Delivery(
            url, body, {**headers, header: sign(secret, body), "Content-Type": "application/json"}
        )
        if self.drop:
            self.dropped.append(delivery)
        else:
            self.sent.append(delivery)
            delivery.post()
        return delivery
