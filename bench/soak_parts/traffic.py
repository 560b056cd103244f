"""The customers: each sends a line, waits for the shop's turn to finish, thinks, and
sends the next — a closed loop, as people on WhatsApp do.

Client threads post signed Twilio webhooks; some deliveries are repeated with the same
MessageSid (Twilio retries). A poller reads which messages have been handled (stored
status in PostgreSQL) and releases their customers. Every MessageSid sent is recorded
so the accounting can prove none was lost and none answered twice.
"""

from __future__ import annotations

import heapq
import http.client
import itertools
import queue
import random
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field

from soak_parts.scripts import script_for
from soak_parts.world import SoakShop

DUPLICATE_SHARE = 0.1
POST_ATTEMPTS = 5
TERMINAL = ("processed", "rate_limited", "failed")


@dataclass
class Customer:
    number: int
    shop: SoakShop
    phone: str
    wants_person: bool
    round_number: int = 0
    lines: list[str] = field(default_factory=list)
    position: int = 0

    def next_line(self) -> str:
        if self.position >= len(self.lines):
            self.round_number += 1
            self.lines = script_for(self.number, self.round_number, self.wants_person)
            self.position = 0
        line = self.lines[self.position]
        self.position += 1
        return line

    @property
    def finished_handoff(self) -> bool:
        return self.wants_person and self.round_number == 1 and self.position == len(self.lines)


@dataclass
class Sent:
    sid: str
    shop: int
    customer: int
    posted_at: float


@dataclass
class Traffic:
    shops: list[SoakShop]
    customers: list[Customer]
    port: int
    path: str
    base_url: str
    think: tuple[float, float]
    run_id: str
    clients: int
    on_handoff_done: Callable[[SoakShop], object]
    sent: dict[str, Sent] = field(default_factory=dict)
    posts: list[tuple[float, int]] = field(default_factory=list)
    waiting: dict[str, Customer] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    _heap: list[tuple[float, int, Customer]] = field(default_factory=list)
    _work: queue.Queue[Customer] = field(default_factory=queue.Queue)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _tie: itertools.count[int] = field(default_factory=itertools.count)
    _numbers: itertools.count[int] = field(default_factory=itertools.count)
    _stop: threading.Event = field(default_factory=threading.Event)

    # --- scheduling -------------------------------------------------------------------
    def schedule(self, customer: Customer, delay: float) -> None:
        with self._lock:
            heapq.heappush(self._heap, (time.monotonic() + delay, next(self._tie), customer))

    def _release_due(self) -> None:
        now = time.monotonic()
        with self._lock:
            while self._heap and self._heap[0][0] <= now:
                self._work.put(heapq.heappop(self._heap)[2])

    def _think(self) -> float:
        return random.uniform(*self.think)

    # --- sending ----------------------------------------------------------------------
    def _form(self, customer: Customer, sid: str, body: str) -> tuple[bytes, str]:
        from twilio.request_validator import RequestValidator

        from tulia.whatsapp.emulator import inbound_params

        shop = customer.shop
        form = inbound_params(
            shop.sender_sid, shop.sender_phone, customer.phone, body, MessageSid=sid
        )
        signature = RequestValidator(shop.sender_token).compute_signature(
            self.base_url + self.path, form
        )
        return urllib.parse.urlencode(form).encode(), signature

    def _post(self, body: bytes, signature: str) -> int:
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Twilio-Signature": signature,
        }
        started = time.perf_counter()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            connection.request("POST", self.path, body, headers)
            response = connection.getresponse()
            response.read()
            status = response.status
            connection.close()
        except OSError:
            status = 0
        with self._lock:
            self.posts.append((time.perf_counter() - started, status))
        return status

    def _deliver(self, customer: Customer) -> None:
        sid = f"SM{self.run_id}{next(self._numbers):024x}"
        body, signature = self._form(customer, sid, customer.next_line())
        for attempt in range(POST_ATTEMPTS):
            if self._post(body, signature) == 200:
                break
            time.sleep(1.0 + attempt)  # Twilio retries a failed webhook later, same sid
        else:
            with self._lock:
                self.failures.append(sid)
            self.schedule(customer, self._think())  # the web never took it; carry on
            return
        with self._lock:
            self.sent[sid] = Sent(sid, customer.shop.number, customer.number, time.time())
            self.waiting[sid] = customer
        if random.random() < DUPLICATE_SHARE:
            time.sleep(random.uniform(0.05, 0.5))
            self._post(body, signature)

    def _client(self) -> None:
        while not self._stop.is_set():
            try:
                customer = self._work.get(timeout=0.2)
            except queue.Empty:
                continue
            self._deliver(customer)

    # --- completion -------------------------------------------------------------------
    def _handled(self, sids: list[str]) -> set[str]:
        from django.db import connection

        from tenants.context import operator_context

        with operator_context("soak accounting"), connection.cursor() as cursor:
            cursor.execute(
                "SELECT message_sid FROM conversations_inboundmessage"
                " WHERE message_sid = ANY(%s) AND status = ANY(%s)",
                [sids, list(TERMINAL)],
            )
            return {row[0] for row in cursor.fetchall()}

    def _poll(self) -> None:
        with self._lock:
            sids = list(self.waiting)
        if not sids:
            return
        for sid in self._handled(sids):
            with self._lock:
                customer = self.waiting.pop(sid)
            if customer.finished_handoff:
                self.on_handoff_done(customer.shop)
            self.schedule(customer, self._think())

    def run(self, seconds: float, tick: Callable[[float], None]) -> float:
        """Drive the traffic for `seconds`; `tick(elapsed)` runs about twice a second."""
        for customer in self.customers:
            self.schedule(customer, random.uniform(0, self.think[1]))
        threads = [threading.Thread(target=self._client, daemon=True) for _ in range(self.clients)]
        for thread in threads:
            thread.start()
        started = time.monotonic()
        while (elapsed := time.monotonic() - started) < seconds:
            self._release_due()
            self._poll()
            tick(elapsed)
            time.sleep(0.5)
        self._stop.set()
        for thread in threads:
            thread.join(timeout=60)
        return time.monotonic() - started
