"""Benchmark: signed Twilio webhooks against the production server configuration.

Starts the embedded PostgreSQL and Redis of the `bench` profile, then — all with
TULIA_PROFILE=production — gunicorn, a Celery worker and the Twilio emulator (for the
outbound sends). For DURATION seconds, CONCURRENCY client threads post signed inbound
webhooks for the demo shops, every MessageSid delivered 3 times (Twilio-style retries,
spread out in time). Then it waits for the worker to drain and prints:
sustained requests/s, p50/p99 latency, messages stored vs replied (lost must be 0) and
replies per MessageSid (must be exactly 1 each).

Environment knobs: BENCH_DURATION (s, default 20), BENCH_CONCURRENCY (default 8),
BENCH_WEB_WORKERS (default 4), BENCH_CELERY_CONCURRENCY (default 2).
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DURATION = float(os.environ.get("BENCH_DURATION", "20"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "8"))
WEB_WORKERS = os.environ.get("BENCH_WEB_WORKERS", "4")
CELERY_CONCURRENCY = os.environ.get("BENCH_CELERY_CONCURRENCY", "2")
DELIVERIES = 3
CUSTOMERS = 400
WINDOW = 60  # a retry of a MessageSid arrives within the next ~WINDOW requests
DRAIN_TIMEOUT = 300.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def production_env(web_port: int, emulator_port: int) -> dict[str, str]:
    """Production settings, backed by the bench profile's embedded servers."""
    from tulia import embedded
    from tulia.secrets_store import dev_secret

    root = embedded.data_dir("bench")
    database_url = embedded.ensure_postgres("bench")
    return {
        **os.environ,
        "TULIA_PROFILE": "production",
        "DATABASE_URL": database_url,
        # The bench process migrates (as the owner); the servers it starts drop this.
        "DATABASE_OWNER_URL": embedded.owner_url(database_url),
        "REDIS_URL": embedded.ensure_redis("bench"),
        "DJANGO_SECRET_KEY": dev_secret(root, "django"),
        "TULIA_OPERATOR_KEY": dev_secret(root, "operator-key"),
        "TULIA_METRICS_TOKEN": dev_secret(root, "metrics-token"),
        "TULIA_FIELD_KEYS": dev_secret(root, "field-key", fernet=True),
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "TULIA_PUBLIC_BASE_URL": f"http://127.0.0.1:{web_port}",
        "TULIA_TWILIO_API_BASE": f"http://127.0.0.1:{emulator_port}",
        # The payment emulators listen on loopback; production allows only the providers.
        "TULIA_PROVIDER_HOST_ALLOWLIST": "127.0.0.1,localhost",
        "TULIA_LOG_LEVEL": "WARNING",
    }


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    handle = log.open("wb")
    return subprocess.Popen(  # noqa: S603 - our own interpreter and fixed arguments
        command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT
    )


def start_children(
    env: dict[str, str], web_port: int, emulator_port: int, logs: Path
) -> list[subprocess.Popen[bytes]]:
    from tenants.demo import SHOPS

    bin_dir = Path(sys.executable).parent
    accounts = [
        arg for shop in SHOPS for arg in ("--account", f"{shop.sender_sid}:{shop.sender_token}")
    ]
    emulator = [sys.executable, "-m", "tulia.whatsapp.emulator", "--port", str(emulator_port)]
    web = [str(bin_dir / "gunicorn"), "tulia.wsgi:application", "--bind", f"127.0.0.1:{web_port}"]
    web += ["--workers", WEB_WORKERS, "--backlog", "2048"]
    worker = [str(bin_dir / "celery"), "-A", "tulia", "worker", "--loglevel", "WARNING"]
    worker += ["--concurrency", CELERY_CONCURRENCY, "-n", f"bench-{os.getpid()}@%h"]
    return [
        start([*emulator, *accounts], env, logs / "emulator.log"),
        start(web, env, logs / "web.log"),
        start(worker, env, logs / "worker.log"),
    ]


def wait_ready(port: int, timeout: float = 180.0) -> None:
    # Generous: on a loaded 2-core machine gunicorn preloading the app takes a minute.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/readyz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError("the web server did not become ready")


class Schedule:
    """Hands out (form, signature) pairs: each new MessageSid again twice, later."""

    def __init__(self, shops: list[tuple[str, str, str]], path: str, base_url: str) -> None:
        from twilio.request_validator import RequestValidator

        self.shops = shops
        self.url = base_url + path
        self.validators = {token: RequestValidator(token) for _, _, token in shops}
        self.run = uuid.uuid4().hex[:8]
        self.lock = threading.Lock()
        self.pending: list[tuple[int, int]] = []  # (due request number, message number)
        self.counter = itertools.count()
        self.numbers = itertools.count()
        self.sids: set[str] = set()

    def next(self) -> tuple[bytes, str, str]:
        with self.lock:
            now = next(self.counter)
            if self.pending and self.pending[0][0] <= now:
                _, number = self.pending.pop(0)
            else:
                number = next(self.numbers)
                for copy in range(1, DELIVERIES):
                    self.pending.append((now + copy * random.randint(1, WINDOW), number))
                self.pending.sort()
        return self.encode(number)

    def encode(self, number: int) -> tuple[bytes, str, str]:
        from tulia.whatsapp.emulator import inbound_params

        sid_number, phone, token = self.shops[number % len(self.shops)]
        sid = f"SM{self.run}{number:024x}"
        customer = f"+2547{20000000 + number % CUSTOMERS:08d}"
        form = inbound_params(
            sid_number, phone, customer, f"bench message {number}", MessageSid=sid
        )
        signature = self.validators[token].compute_signature(self.url, form)
        with self.lock:
            self.sids.add(sid)
        return urllib.parse.urlencode(form).encode(), signature, sid


def client_loop(port: int, path: str, schedule: Schedule, until: float, results: list) -> None:
    while time.monotonic() < until:
        body, signature, _ = schedule.next()
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "X-Twilio-Signature": signature,
        }
        started = time.perf_counter()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            connection.request("POST", path, body, headers)
            response = connection.getresponse()
            response.read()
            status = response.status
            connection.close()
        except OSError:
            status = 0
        results.append((time.perf_counter() - started, status))


def process_tree_cpu(root_pid: int) -> float:
    """User+system CPU seconds of a process and its children (e.g. gunicorn, postgres)."""
    import psutil

    try:
        root = psutil.Process(root_pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def postmaster_pid() -> int:
    from tulia import embedded

    return int((embedded.data_dir("bench") / "pg" / "postmaster.pid").read_text().split()[0])


def run_load(port: int, path: str, schedule: Schedule) -> tuple[list, float]:
    results: list[tuple[float, int]] = []
    started = time.monotonic()
    until = started + DURATION
    threads = [
        threading.Thread(target=client_loop, args=(port, path, schedule, until, results))
        for _ in range(CONCURRENCY)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, time.monotonic() - started


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def stored_and_replied(run: str) -> tuple[int, int, Counter[int]]:
    """Inbound rows of this run, how many got a sent reply, and replies per message."""
    from django.db import connection

    from tenants.context import operator_context

    with operator_context("benchmark accounting"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.id, count(o.id) FILTER (WHERE o.twilio_sid IS NOT NULL)"
            " FROM conversations_inboundmessage i"
            " LEFT JOIN conversations_outboundmessage o ON o.request_id = i.request_id"
            " AND o.tenant_id = i.tenant_id"
            " WHERE i.message_sid LIKE %s GROUP BY i.id",
            [f"SM{run}%"],
        )
        rows = cursor.fetchall()
    per_message = Counter(count for _, count in rows)
    return len(rows), sum(1 for _, count in rows if count >= 1), per_message


def drain(run: str, expected: int) -> tuple[int, int, Counter[int], float]:
    started = time.monotonic()
    while True:
        stored, replied, per_message = stored_and_replied(run)
        if replied >= expected or time.monotonic() - started > DRAIN_TIMEOUT:
            return stored, replied, per_message, time.monotonic() - started
        time.sleep(1.0)


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "tulia.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    seed_demo_data()


def seed_demo_data() -> None:
    """What `manage.py seed_demo` seeds. The command refuses the production profile (its
    logins have published passwords); this bench database is the bench profile's own,
    on loopback, so the bench calls the same seeders directly."""
    from django.db import transaction

    from tenants.demo import seed_tenants
    from tenants.management.commands.seed_demo import DEMO_SEEDERS, _load

    with transaction.atomic():
        tenants = seed_tenants()
        for path in DEMO_SEEDERS:
            _load(path)(tenants)


def report(
    results: list, elapsed: float, schedule: Schedule, accounting: tuple, cpu: dict[str, float]
) -> None:
    stored, replied, per_message, drained = accounting
    latencies = [seconds * 1000 for seconds, _ in results]
    statuses = Counter(status for _, status in results)
    unique = len(schedule.sids)
    figures = {
        "requests_per_s": round(len(results) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.50), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "stored": stored,
        "replied": replied,
        "lost": unique - replied,
        "replies_per_sid": dict(sorted(per_message.items())),
        "web_cpu_ms_per_req": cpu["web"],
        "pg_cpu_ms_per_req": cpu["postgres"],
    }
    print(f"webhook requests: {len(results)} in {elapsed:.1f} s, statuses {dict(statuses)}")
    print(f"  sustained: {figures['requests_per_s']} req/s with {CONCURRENCY} clients")
    print(
        f"  latency: p50 {figures['p50_ms']} ms, p99 {figures['p99_ms']} ms,"
        f" max {max(latencies, default=0):.1f} ms"
    )
    print(f"unique MessageSids: {unique} (each delivered up to {DELIVERIES} times)")
    print(
        f"  stored: {stored}, replied: {replied}, lost: {unique - replied}"
        f" (drained {drained:.1f} s after the load)"
    )
    print(f"  replies per MessageSid: {figures['replies_per_sid']}")
    print("summary: " + json.dumps(figures))


def print_cpu(used: dict[str, float], requests: int, elapsed: float) -> dict[str, float]:
    """CPU spent during the load, per webhook: what one request costs, whatever the load
    of the machine (load average is printed because other work shares these cores)."""
    per_request = {
        name: round(seconds * 1000 / max(requests, 1), 2) for name, seconds in used.items()
    }
    print(f"CPU ms per webhook during the load: {per_request}")
    print(
        f"  cores busy with our processes: {sum(used.values()) / elapsed:.2f} of {os.cpu_count()};"
        f" load average {os.getloadavg()[0]:.1f}"
    )
    return per_request


def shops() -> list[tuple[str, str, str]]:
    from tenants.demo import SHOPS

    return [(shop.sender_sid, shop.sender_phone, shop.sender_token) for shop in SHOPS]


def main() -> int:
    web_port, emulator_port = free_port(), free_port()
    env = production_env(web_port, emulator_port)
    setup_django(env)
    logs = Path(env.get("TULIA_DATA_DIR", ROOT / "var")) / "bench" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    children = start_children(env, web_port, emulator_port, logs)
    try:
        wait_ready(web_port)
        from django.urls import reverse

        path = reverse("whatsapp:inbound")
        schedule = Schedule(shops(), path, env["TULIA_PUBLIC_BASE_URL"])
        roots = {"web": children[1].pid, "postgres": postmaster_pid(), "worker": children[2].pid}
        before = {name: process_tree_cpu(pid) for name, pid in roots.items()}
        results, elapsed = run_load(web_port, path, schedule)
        used = {name: process_tree_cpu(pid) - before[name] for name, pid in roots.items()}
        cpu = print_cpu(used, len(results), elapsed)
        report(results, elapsed, schedule, drain(schedule.run, len(schedule.sids)), cpu)
    finally:
        for child in children:
            child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(timeout=20)
            except subprocess.TimeoutExpired:
                child.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
