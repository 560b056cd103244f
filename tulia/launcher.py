"""`make run`: bring the whole platform up on one machine.

Starts (or reuses) the embedded PostgreSQL and Redis, migrates, seeds the demo tenants,
then runs gunicorn, a Celery worker (with beat) and the payment emulators as child
processes until Ctrl-C or SIGTERM. With `--check` it waits for /readyz, prints the
result and stops everything again. On the way out it stops its children and the
embedded servers it started itself (ones it found running are left running).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tulia import embedded

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
    import django

    django.setup()


def _start_servers() -> embedded.Started:
    profile = os.environ.get("TULIA_PROFILE") or "dev"
    if profile == "production":  # production names its own servers (DATABASE_URL, REDIS_URL)
        return embedded.Started(profile)
    return embedded.start(profile)


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (systemd, docker stop, kill) ends the launcher the way Ctrl-C does."""
    raise KeyboardInterrupt


def _prepare() -> dict[str, str]:
    """Migrate, collect static files and seed; return the environment for children."""
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    call_command("seed_demo", verbosity=0)
    env = dict(os.environ)
    env["DATABASE_URL"] = settings.DATABASE_URL
    env["REDIS_URL"] = settings.REDIS_URL
    # The web and worker processes run as the runtime role only: the owner could lift RLS.
    env.pop("DATABASE_OWNER_URL", None)
    env.setdefault("TULIA_PROFILE", settings.TULIA_PROFILE)
    return env


def _start_children(env: dict[str, str], bind: str) -> list[subprocess.Popen[bytes]]:
    web = [
        str(BIN / "gunicorn"),
        "tulia.wsgi:application",
        # Preloads the app in the master so the workers share it (tulia/preload.py).
        "--config",
        str(ROOT / "deploy" / "gunicorn.conf.py"),
        "--bind",
        bind,
        "--workers",
        env.get("WEB_CONCURRENCY", "2"),
        "--access-logfile",
        "-",
        "--logger-class",
        "tulia.observability.access_log.ScrubbingLogger",
    ]
    # The Celery worker under a supervisor that restarts it warm (tulia/worker.py).
    worker = [
        sys.executable,
        "-m",
        "tulia.worker",
        "--without-mingle",
        "--beat",
        "--loglevel",
        "INFO",
        "--concurrency",
        env.get("CELERY_CONCURRENCY", "2"),
        "--schedule",
        str(ROOT / "var" / "celerybeat-schedule"),
    ]
    # Local Daraja and PesaPal emulators, so the demo's payments complete end to end.
    emulators = [sys.executable, "manage.py", "payment_emulators"]
    commands = (web, worker, emulators)
    return [subprocess.Popen(cmd, cwd=ROOT, env=env) for cmd in commands]  # noqa: S603


def _wait_ready(url: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - local URL
                if response.status == 200:
                    return True
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    return False


def _wait_worker(timeout: float) -> bool:
    """True once a Celery worker answers a broadcast ping."""
    from tulia.celery import app

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if app.control.ping(timeout=1.0):
                return True
        except OSError:  # the broker connection can still be settling; ask again
            time.sleep(0.5)
    return False


def _banner(base: str) -> str:
    from tenants.demo import DEMO_PASSWORD, SHOPS

    shops = "\n".join(
        f"    {shop.fields['name']:<18} WhatsApp {shop.sender_phone}  staff: "
        + ", ".join(name for name, _ in shop.staff)
        for shop in SHOPS
    )
    return f"""
Tulia is running.
  Admin:        {base}/admin/   (superuser: admin)
  Password:     {DEMO_PASSWORD}   (same for every demo login)
  Demo shops:
{shops}
  Chat with a shop from another terminal:
    .venv/bin/python manage.py chat kicks-nairobi
  Health:       {base}/healthz   {base}/readyz
Press Ctrl-C to stop.
"""


def _not_ready(web_ready: bool, worker_ready: bool) -> str:
    broken = "web server" if not web_ready else "Celery worker"
    return f"The {broken} did not become ready within a minute; see the log above."


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children:
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bind", default=os.environ.get("TULIA_BIND", "127.0.0.1:8000"))
    parser.add_argument("--check", action="store_true", help="start, wait until ready, stop")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    servers = _start_servers()
    try:
        return _serve(args.bind, check=args.check)
    except KeyboardInterrupt:
        return 0
    finally:
        embedded.stop(servers)


def _serve(bind: str, *, check: bool) -> int:
    _django_setup()
    env = _prepare()
    base = f"http://{bind}"
    children = _start_children(env, bind)
    try:
        web_ready = _wait_ready(f"{base}/readyz", timeout=60)
        worker_ready = web_ready and _wait_worker(timeout=60)
        ready = web_ready and worker_ready
        message = _banner(base) if ready else _not_ready(web_ready, worker_ready)
        print(message, flush=True)  # noqa: T201
        if check or not ready:
            return 0 if ready else 1
        while all(child.poll() is None for child in children):
            time.sleep(1)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        _stop(children)


if __name__ == "__main__":
    sys.exit(main())
