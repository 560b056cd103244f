"""One worker OS process driving its share of the conversations through the turn
handler, as the pipeline does, recording wall/CPU time, queries and LLM calls per turn."""

from __future__ import annotations

import heapq
import multiprocessing as mp
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from turns_parts.scripts import IMAGE, MAX_SALE_TURNS, PAY, SALE, Plan, step_answer
from turns_parts.shops import deliver_stk_callback, demo_senders


@dataclass
class TurnRecord:
    journey: str
    lang: str
    shop: str
    wall_ms: float
    cpu_ms: float
    classify_ms: float
    queries: int
    llm_calls: int
    replied: bool


@dataclass
class WorkerResult:
    records: list[TurnRecord]
    started: float
    finished: float
    payments: int
    paid: int
    worst: list[WorstTurn] = field(default_factory=list)


@dataclass(order=True)
class WorstTurn:
    """A turn with many queries, kept with its SQL for `--worst` (journey, step, text)."""

    queries: int
    journey: str = field(compare=False)
    step: str = field(compare=False)
    text: str = field(compare=False)
    sql: list[str] = field(compare=False)


class ClassifierClock:
    """Wall time spent in the graph's classifier nodes, summed per turn (shown apart)."""

    def __init__(self) -> None:
        self.ms = 0.0

    def install(self) -> None:
        from journeys import graph

        for name in graph.CLASSIFIERS:
            graph.NODES[name] = self.timed(graph.NODES[name])

    def timed(self, fn: Any) -> Any:
        def run(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.ms += (time.perf_counter() - started) * 1000

        return run


CLASSIFIERS = ClassifierClock()


class QueryCounter:
    def __init__(self) -> None:
        self.count = 0
        self.sql: list[str] = []

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        self.sql.append(sql)
        return execute(sql, params, many, context)


@dataclass
class Customer:
    """One bench customer's conversation, stored after each turn as the pipeline does."""

    plan: Plan
    tenant_id: Any
    customer_id: int
    conversation_id: int
    sender_id: int
    state: dict[str, Any] = field(default_factory=dict)
    turn_number: int = 0
    open: bool = True  # False once a person has the conversation (no bot replies)

    def turn_input(self, text: str, kind: str) -> Any:
        from tulia.conversations.turns import TurnInput
        from tulia.whatsapp.schemas import InboundContent

        return TurnInput(
            tenant_id=self.tenant_id,
            conversation_id=self.conversation_id,
            customer_id=self.customer_id,
            sender_id=self.sender_id,
            request_id=f"bench-{uuid.uuid4().hex[:16]}",
            messages=[InboundContent(kind=kind, text=text)],
            inbound_message_ids=[self.turn_number + 1],
            state=self.state,
            turn_number=self.turn_number + 1,
            conversation_status=self.status(),
        )

    def status(self) -> str:
        """Read before the timed turn, as the pipeline reads it when it claims the turn."""
        from tenants.context import tenant_context
        from tulia.conversations.models import Conversation

        with tenant_context(self.tenant_id) as tid:
            found = Conversation.objects.filter(tenant_id=tid, pk=self.conversation_id)
            return str(found.values_list("status", flat=True).get())

    def store(self) -> None:
        from tenants.context import tenant_context
        from tulia.conversations.models import Conversation

        with tenant_context(self.tenant_id) as tid:
            Conversation.objects.filter(tenant_id=tid, pk=self.conversation_id).update(
                state=self.state, turn_count=self.turn_number
            )


def start_customer(plan: Plan, senders: dict[str, tuple[Any, int]]) -> Customer:
    from tenants.services import get_or_create_customer
    from tulia.conversations.services import open_conversation

    tenant_id, sender_id = senders[plan.shop]
    customer, _ = get_or_create_customer(tenant_id, plan.phone)
    conversation = open_conversation(tenant_id, customer.pk, sender_id)
    return Customer(plan, tenant_id, customer.pk, conversation.pk, sender_id)


class Driver:
    def __init__(self, worst: int = 0) -> None:
        from django.db import connection

        from journeys.handler import handle_turn

        self.handle_turn = handle_turn
        self.connection = connection
        self.records: list[TurnRecord] = []
        self.payments = self.paid = 0
        self.keep_worst = worst
        self.worst: list[WorstTurn] = []  # a min-heap of the turns with most queries

    def send(self, who: Customer, text: str, kind: str = "text") -> None:
        """One timed turn: the handler and the state write, as the pipeline runs them."""
        counter = QueryCounter()
        turn = who.turn_input(text, kind)
        CLASSIFIERS.ms = 0.0
        wall, cpu = time.perf_counter(), time.process_time()
        with self.connection.execute_wrapper(counter):
            output = self.handle_turn(turn)
            who.turn_number += 1
            if output.state is not None:
                who.state = output.state
            who.store()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        who.open = output.state is not None and not who.state.get("escalation", {}).get("ticket_id")
        plan = who.plan
        if self.keep_worst:
            step = f"{who.state.get('journey')}/{who.state.get('journey_step')}"
            kept = WorstTurn(counter.count, plan.journey, step, text[:40], counter.sql)
            heapq.heappush(self.worst, kept)
            if len(self.worst) > self.keep_worst:
                heapq.heappop(self.worst)
        calls = int((output.state or {}).get("llm_calls", 0))
        self.records.append(
            TurnRecord(plan.journey, plan.lang, plan.shop, wall * 1000, cpu * 1000,
                       CLASSIFIERS.ms, counter.count, calls, bool(output.replies))
        )  # fmt: skip

    def converse(self, who: Customer) -> None:
        rng = random.Random(who.plan.seed)
        for line in who.plan.lines:
            if not who.open:
                return
            if line == SALE:
                self.sell(who, rng)
            elif line == PAY:
                self.pay(who)
            elif line == IMAGE:
                self.send(who, "", kind="image")
            else:
                self.send(who, line)

    def sell(self, who: Customer, rng: random.Random) -> None:
        """Answer whatever the sale asks until the payment is on its way (or it stalls)."""
        for _ in range(MAX_SALE_TURNS):
            answer = step_answer(who.state, who.plan.lang, rng)
            if answer is None or not who.open:
                return
            self.send(who, answer)

    def pay(self, who: Customer) -> None:
        if who.state.get("sale", {}).get("step") != "paying" or not who.state.get(
            "payment_request_id"
        ):
            return
        self.payments += 1
        self.paid += deliver_stk_callback(who.tenant_id, int(who.state["payment_request_id"]))


def worker(plans: list[Plan], warmup: list[Plan], worst: int) -> WorkerResult:
    """Runs in a fresh process: Django set up here, warm-up turns not recorded."""
    import logging

    import django

    django.setup()
    CLASSIFIERS.install()  # before the graph is first compiled
    logging.disable(logging.WARNING)  # tool and payment logs would swamp the figures
    senders = demo_senders()
    driver = Driver(worst)
    for plan in warmup:
        driver.converse(start_customer(plan, senders))
    driver.records.clear()
    driver.worst.clear()
    driver.payments = driver.paid = 0
    started = time.time()
    for plan in plans:
        driver.converse(start_customer(plan, senders))
    finished = time.time()
    return WorkerResult(driver.records, started, finished, driver.payments, driver.paid,
                        sorted(driver.worst, reverse=True))  # fmt: skip


def run_workers(
    plans: list[Plan], warmup: list[Plan], workers: int, worst: int = 0
) -> list[WorkerResult]:
    shares = [plans[n::workers] for n in range(workers)]
    context = mp.get_context("spawn")  # a fresh interpreter and Django setup per process
    with context.Pool(workers) as pool:
        return pool.starmap(worker, [(share, warmup, worst) for share in shares])
