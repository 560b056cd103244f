"""One pooled HTTP client per process for the payment providers (Daraja, PesaPal).

Building an `httpx.Client` loads the CA bundle into a fresh SSL context: several ms of
CPU, about a twelfth of a turn that starts an STK push in bench/turns.py. A client per
call also never reused a connection and was never closed. The client is made lazily in
the process that uses it: one made before a fork (gunicorn, Celery prefork) would share
its sockets with every child.
"""

from __future__ import annotations

import os
import threading

import httpx

TIMEOUT = httpx.Timeout(15.0, connect=5.0)

_lock = threading.Lock()
_clients: dict[int, httpx.Client] = {}


def provider_client() -> httpx.Client:
    """This process's client (httpx clients are safe to share between threads)."""
    pid = os.getpid()
    client = _clients.get(pid)
    if client is None:
        with _lock:
            client = _clients.get(pid)
            if client is None:
                _clients.clear()  # a parent's client, inherited over fork: never used here
                client = _clients[pid] = httpx.Client(timeout=TIMEOUT)
    return client
