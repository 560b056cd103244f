"""Campaign sending against the Twilio emulator: tiers kept, capacity, and a killed worker.

    TULIA_DATA_DIR=var/campaign-bench .venv/bin/python bench/campaign_send.py \
        [--per-shop 2000] [--shops 5] [--workers 2] [--tier-audience 300] [--crash 2000]

(a) two shops at Meta's 250 tier (200 for marketing, 20% kept for utility) and a 1,000
    tier send campaigns larger than that at 20 a second: reached customers and the
    busiest second per sender, against the limits;
(b) throttles lifted (unlimited tier, no per-second cap): `--shops` shops with
    `--per-shop` opted-in customers each, one campaign per shop, `--workers` worker
    processes running `sending.run`: sends per second, p50/p99 from the recipient row
    being queued to Twilio accepting, worker memory (RSS) as the campaign progresses;
(c) a worker SIGKILLed mid-campaign (`--crash` recipients, a tenth of them opting out
    after the audience was written), then a new worker: duplicates, sends to
    opted-out customers, in-doubt recipients found at Twilio / resent / lost.

Workers are separate processes (this script with --worker), so (c) is a real kill.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from uuid import UUID

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "dev")

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

import django  # noqa: E402

django.setup()

import logging  # noqa: E402

logging.disable(logging.WARNING)

import psutil  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.utils import timezone  # noqa: E402

from tenants.context import tenant_context  # noqa: E402
from tenants.models import ConsentEvent, Customer, WhatsAppSender  # noqa: E402
from tenants.services import create_tenant, record_consent, register_whatsapp_sender  # noqa: E402
from tulia.campaigns import control, sending  # noqa: E402
from tulia.campaigns.models import Campaign, CampaignRecipient, MessagingSettings  # noqa: E402
from tulia.conversations.models import OutboundMessage  # noqa: E402
from tulia.whatsapp import delivery, templates  # noqa: E402
from tulia.whatsapp.emulator import TwilioEmulator  # noqa: E402
from tulia.whatsapp.models import MessageTemplate, SenderLimit  # noqa: E402

SID = "AC" + "c" * 32
TOKEN = "bench-token-123456"  # noqa: S105 - the emulator's, not a secret
RUN = f"{int(time.time()) % 100000:05d}"
_numbers = iter(range(1, 1000))


# --- worker processes -----------------------------------------------------------------
def worker(pairs: list[str]) -> None:
    """Run the campaigns' slices until each is done or waits (for its tier); with
    CAMPAIGN_BENCH_PROFILE=<dir> the worker's cProfile is written there. With
    CAMPAIGN_BENCH_GATE=<dir> the worker says it is ready there and waits for `go`: a
    Celery worker starts once, not per campaign, so (b) leaves start-up out."""
    gate = os.environ.get("CAMPAIGN_BENCH_GATE")
    if gate:
        delivery.status_callback_url()  # Django's URL resolver, built once per process
        (Path(gate) / f"ready-{os.getpid()}").touch()
        while not (Path(gate) / "go").exists():
            time.sleep(0.02)
    phases = _phased() if os.environ.get("CAMPAIGN_BENCH_PHASES") else None
    began = time.process_time()
    profile_dir = os.environ.get("CAMPAIGN_BENCH_PROFILE")
    if not profile_dir:
        _work(pairs)
    else:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU, not the machine's queue
        profiler.runcall(_work, pairs)
        profiler.dump_stats(str(Path(profile_dir) / f"worker-{os.getpid()}.prof"))
    if gate:  # the CPU the work took, to the end (a sample from outside misses the tail)
        (Path(gate) / f"cpu-{os.getpid()}").write_text(str(time.process_time() - began))
    if phases is not None:
        print(f"worker {os.getpid()} CPU s by phase: "
              + ", ".join(f"{k} {v:.2f}" for k, v in phases.items()), flush=True)  # fmt: skip


def _phased() -> dict[str, float]:
    """CPU time (this thread) spent in each step of a batch, summed."""
    from tulia.campaigns import batch
    from tulia.campaigns.rate import RateGate
    from tulia.whatsapp.backends.twilio_rest import TwilioBackend

    totals: dict[str, float] = {}

    def timed(owner: object, name: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            start = time.thread_time()
            try:
                return inner(*args, **kwargs)
            finally:
                totals[name] = totals.get(name, 0.0) + time.thread_time() - start

        setattr(owner, name, wrapper)

    for owner, name in ((batch, "_claim"), (batch, "_send"), (TwilioBackend, "send"),
                        (batch, "_record"), (RateGate, "take"), (batch.optouts, "version"),
                        (sending, "settle_in_doubt"), (sending, "run")):  # fmt: skip
        timed(owner, name)
    return totals


def _work(pairs: list[str]) -> None:
    open_ = [(t, int(c)) for t, c in (p.split(":") for p in pairs)]
    while open_:
        still = []
        for tenant_id, campaign_id in open_:
            report = sending.run(tenant_id, campaign_id, seconds=5.0)
            waiting = report.next_at is not None and report.next_at > timezone.now()
            with tenant_context(tenant_id):
                status = Campaign.objects.get(pk=campaign_id).status
            if status == Campaign.Status.RUNNING and not waiting:
                still.append((tenant_id, campaign_id))
        open_ = still


def spawn(pairs: list[tuple[str, int]], gate: Path | None = None) -> subprocess.Popen[bytes]:
    args = [sys.executable, __file__, "--worker", *(f"{t}:{c}" for t, c in pairs)]
    env = os.environ.copy() | ({"CAMPAIGN_BENCH_GATE": str(gate)} if gate else {})
    return subprocess.Popen(args, env=env)  # noqa: S603


def started(groups: list[list[tuple[str, int]]], gate: Path) -> list[subprocess.Popen[bytes]]:
    """Worker processes started and ready (Django set up), waiting for `go`."""
    procs = [spawn(group, gate) for group in groups if group]
    while len(list(gate.glob("ready-*"))) < len(procs):
        if any(p.poll() is not None for p in procs):
            raise SystemExit("a worker died while starting")
        time.sleep(0.1)
    return procs


# --- shops ------------------------------------------------------------------------------
def shop(twilio: TwilioEmulator, customers: int, *, tier: str, rate: int) -> tuple[str, Campaign]:
    n = next(_numbers)
    tenant = create_tenant(slug=f"bench-{RUN}-{n}", name=f"Bench shop {n}")
    phone = f"+25479{RUN[-4:]}{n:03d}"
    register_whatsapp_sender(tenant.id, phone=phone, account_sid=SID, auth_token=TOKEN)
    with tenant_context(tenant.id) as tid:
        MessagingSettings.objects.create(tenant_id=tid, quiet_from="00:00", quiet_until="00:00")
        sender = WhatsAppSender.objects.get(tenant_id=tid)
        limit = SenderLimit.objects.create(tenant_id=tid, sender=sender)
        SenderLimit.objects.filter(pk=limit.pk).update(tier=tier)
        template = MessageTemplate.objects.create(
            tenant_id=tid, name="sale", language="en", category="marketing",
            body="Hi! Our {{1}} sale is on. Reply STOP to opt out.", examples={"1": "weekend"},
        )  # fmt: skip
        chunk = 5000
        for start in range(0, customers, chunk):
            rows = Customer.objects.bulk_create(
                Customer(tenant_id=tid, phone_e164=f"+2547{n:02d}{i:06d}", marketing_opt_in=True)
                for i in range(start, min(customers, start + chunk))
            )
            ConsentEvent.objects.bulk_create(
                ConsentEvent(tenant_id=tid, customer=c, kind="marketing", action="granted",
                             source="import")
                for c in rows
            )  # fmt: skip
    submitted = templates.submit(tenant.id, template.pk)
    twilio.approve(submitted.content_sid)
    templates.sync(tenant.id, template.pk)
    with tenant_context(tenant.id) as tid:
        campaign = Campaign.objects.create(
            tenant_id=tid, name="bench", template=template, sender=sender,
            variables={"1": "weekend"}, rate_per_second=min(rate, 80),
        )  # fmt: skip
        Campaign.objects.filter(pk=campaign.pk).update(rate_per_second=rate)  # lifted in (b)
    control.schedule(tenant.id, campaign.pk)
    control.start_due(tenant.id, campaign.pk)
    return str(tenant.id), campaign


def sent_from(twilio: TwilioEmulator, phone: str) -> list:
    return [m for m in twilio.sent if m.from_ == f"whatsapp:{phone}"]


def sender_phone(tenant_id: str) -> str:
    with tenant_context(tenant_id):
        return WhatsAppSender.objects.get().phone_e164


# --- (a) ---------------------------------------------------------------------------------
def tiers(twilio: TwilioEmulator, audience: int) -> None:
    print(f"\n(a) senders at their tier: campaigns of {audience} / {audience * 4} at 20 a second")
    shops = [
        (*shop(twilio, audience, tier="250", rate=20), 250),
        (*shop(twilio, audience, tier="250", rate=20), 250),
        (*shop(twilio, audience * 4, tier="1000", rate=20), 1000),
    ]
    worker_ = spawn([(t, c.pk) for t, c, _ in shops])
    worker_.wait()
    for tenant_id, _, tier in shops:
        mine = sent_from(twilio, sender_phone(tenant_id))
        reached = len({m.to for m in mine})
        busiest = max(Counter(int(m.created_at.timestamp()) for m in mine).values())
        share = tier * 80 // 100
        verdict = "ok" if reached <= share and busiest <= 20 else "EXCEEDED"
        print(
            f"  tier {tier:>4}: reached {reached} customers (marketing share {share}), "
            f"busiest second {busiest} sends (cap 20): {verdict}"
        )


# --- (b) ---------------------------------------------------------------------------------
def capacity(twilio: TwilioEmulator, shops: int, per_shop: int, workers: int) -> None:
    print(f"\n(b) throttles lifted: {shops} shops x {per_shop} = {shops * per_shop} recipients, "
          f"{workers} worker processes")  # fmt: skip
    made = [shop(twilio, per_shop, tier="unlimited", rate=30000) for _ in range(shops)]
    for tenant_id, campaign in made:  # audiences written before the clock starts
        sending.build_audience(UUID(tenant_id), campaign)
    total = shops * per_shop
    gate = Path(tempfile.mkdtemp(prefix="campaign-bench-"))
    procs = started([[(t, c.pk) for t, c in made[i::workers]] for i in range(workers)], gate)
    startup = sum(_cpu(p.pid) for p in procs) / len(procs)
    print(f"  worker start-up (Django set up, before any send): {startup:.2f} s CPU each, "
          "left out below")  # fmt: skip
    before = len(twilio.sent)
    rss: list[tuple[float, float]] = []
    cpu = CpuSampler({"workers": lambda: [p.pid for p in procs], **_services()})
    (gate / "go").touch()
    began = time.monotonic()
    while any(p.poll() is None for p in procs):
        done = (len(twilio.sent) - before) / total
        mem = sum(_rss(p.pid) for p in procs if p.poll() is None)
        cpu.sample()
        rss.append((done, mem))
        time.sleep(0.5)
    elapsed = time.monotonic() - began
    cpu.sample()
    sent = len(twilio.sent) - before
    load = os.getloadavg()
    print(f"  sent {sent} of {total} in {elapsed:.1f} s: {sent / elapsed:.0f} sends/s "
          f"(load average now {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")  # fmt: skip
    used = cpu.used() | {"workers": sum(float(f.read_text()) for f in gate.glob("cpu-*"))}
    shares = ", ".join(
        f"{name} {1000 * seconds / max(sent, 1):.2f} ms" for name, seconds in used.items()
    )
    per_send = sum(used.values()) / max(sent, 1)
    print(f"  CPU per send: {shares}; total {1000 * per_send:.2f} ms, so about "
          f"{2 / per_send:.0f} sends/s on 2 idle cores (workers' own count; the others "
          "sampled every 0.5 s, so a little under)")  # fmt: skip
    queued_to_sent, claim_to_sent = [], []
    for tenant_id, campaign in made:
        with tenant_context(tenant_id):
            rows = CampaignRecipient.objects.filter(campaign_id=campaign.pk).values_list(
                "queued_at", "claimed_at", "outbound__sent_at"
            )
            for queued, claimed, accepted in rows.iterator(chunk_size=5000):
                if accepted and claimed:
                    queued_to_sent.append((accepted - queued).total_seconds())
                    claim_to_sent.append((accepted - claimed).total_seconds())
    for name, values in (("queued->sent", queued_to_sent), ("claimed->sent", claim_to_sent)):
        values.sort()
        p50, p99 = values[len(values) // 2], values[int(len(values) * 0.99)]
        print(f"  {name}: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms")
    for mark in (0.1, 0.5, 0.9):
        near = min(rss, key=lambda point: abs(point[0] - mark), default=(0, 0))
        print(f"  worker RSS at {near[0]:.0%} sent: {near[1]:.0f} MiB (all workers)")


def _cpu(pid: int) -> float:
    """User + system CPU seconds the process has used so far (0 once it is gone)."""
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.NoSuchProcess:
        return 0.0
    return times.user + times.system


def _services() -> dict[str, Callable[[], list[int]]]:
    """The embedded PostgreSQL (postmaster and every backend) and Redis, by pid file;
    "emulator" is this process: the Twilio emulator's threads and the sampling."""
    root = embedded.data_dir(os.environ["TULIA_PROFILE"])

    def postgres() -> list[int]:
        try:
            master = psutil.Process(int((root / "pg" / "postmaster.pid").read_text().split()[0]))
            return [master.pid, *(c.pid for c in master.children())]
        except (OSError, ValueError, psutil.Error):
            return []

    def redis() -> list[int]:
        try:
            return [int((root / "redis" / "redis.pid").read_text().split()[0])]
        except (OSError, ValueError):
            return []

    return {"emulator": lambda: [os.getpid()], "postgres": postgres, "redis": redis}


class CpuSampler:
    """CPU seconds used by groups of processes since the sampler was made: a process
    already running then counts from that point, a newer one from its start."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]]) -> None:
        self.groups = groups
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.owner: dict[int, str] = {}
        for name, pids in groups.items():
            for pid in pids():
                self.first[pid] = _cpu(pid)
                self.owner[pid] = name

    def sample(self) -> None:
        for name, pids in self.groups.items():
            for pid in pids():
                self.owner.setdefault(pid, name)
                self.first.setdefault(pid, 0.0)
                self.last[pid] = max(self.last.get(pid, 0.0), _cpu(pid))

    def used(self) -> dict[str, float]:
        totals = dict.fromkeys(self.groups, 0.0)
        for pid, last in self.last.items():
            totals[self.owner[pid]] += max(0.0, last - self.first[pid])
        return totals


def _rss(pid: int) -> float:
    try:
        return psutil.Process(pid).memory_info().rss / 2**20
    except psutil.NoSuchProcess:
        return 0.0


# --- (c) ---------------------------------------------------------------------------------
def crash(twilio: TwilioEmulator, recipients: int) -> None:
    print(f"\n(c) worker SIGKILLed mid-campaign: {recipients} recipients, a tenth opt out")
    tenant_id, campaign = shop(twilio, recipients, tier="unlimited", rate=30000)
    sending.build_audience(UUID(tenant_id), campaign)
    with tenant_context(tenant_id):
        quitters = list(
            Customer.objects.order_by("?").values_list("pk", "phone_e164")[: recipients // 10]
        )
    for pk, _ in quitters:
        record_consent(tenant_id, pk, kind="all", action="withdrawn", source="whatsapp")
    phone = sender_phone(tenant_id)
    victim = spawn([(tenant_id, campaign.pk)])
    while len(sent_from(twilio, phone)) < recipients // 3:
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    victim.wait()
    at_kill = len(sent_from(twilio, phone))
    with tenant_context(tenant_id):
        doubt = CampaignRecipient.objects.filter(campaign_id=campaign.pk, status="sending").count()
    print(f"  killed after {at_kill} sends; {doubt} recipient(s) left 'sending'")
    time.sleep(9)  # the dead worker's leases (8 s) run out, as the beat would find them
    spawn([(tenant_id, campaign.pk)]).wait()
    mine = sent_from(twilio, phone)
    per_customer = Counter(m.to for m in mine)
    opted_out = {f"whatsapp:{p}" for _, p in quitters}
    with tenant_context(tenant_id):
        doubts = Counter(
            CampaignRecipient.objects.filter(campaign_id=campaign.pk).values_list(
                "doubt", flat=True
            )
        )
        states = Counter(
            CampaignRecipient.objects.filter(campaign_id=campaign.pk).values_list(
                "status", flat=True
            )
        )
        unsent = OutboundMessage.objects.filter(status__in=("pending", "sending")).count()
    print(
        f"  sent {len(mine)} messages to {len(per_customer)} customers; recipients {dict(states)}"
    )
    print(f"  duplicates: {sum(c - 1 for c in per_customer.values())}; "
          f"sends to opted-out: {len(opted_out & set(per_customer))}")  # fmt: skip
    print(f"  in doubt: found at Twilio {doubts['found']}, resent {doubts['resent']}, "
          f"lost {doubts['lost']}; outbound rows still pending/sending: {unsent}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", nargs="*")
    parser.add_argument("--per-shop", type=int, default=2000)
    parser.add_argument("--shops", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tier-audience", type=int, default=300)
    parser.add_argument("--crash", type=int, default=2000)
    parser.add_argument("--only", choices=["a", "b", "c"])
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker)
        return 0
    call_command("migrate", verbosity=0)
    load = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    with TwilioEmulator() as twilio:
        twilio.add_account(SID, TOKEN)
        twilio.auto_approve = True
        os.environ["TULIA_TWILIO_API_BASE"] = twilio.base_url
        from django.conf import settings

        settings.TULIA_TWILIO_API_BASE = twilio.base_url
        if args.only in (None, "a"):
            tiers(twilio, args.tier_audience)
        if args.only in (None, "b"):
            capacity(twilio, args.shops, args.per_shop, args.workers)
        if args.only in (None, "c"):
            crash(twilio, args.crash)
    return 0


if __name__ == "__main__":
    sys.exit(main())
