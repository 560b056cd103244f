"""Fetching addresses that a shop typed, without letting it reach our own network.

A shop controls some URLs we fetch server-side (item photos today, its own store later).
Such a URL must never become a way to reach loopback, private, link-local or other
non-public addresses (the metadata service, our database, a neighbour's admin page).
The host is resolved once, every address it resolves to must be public, and the request
is then pinned to that checked address, so a DNS answer that changes between the check
and the connection cannot slip through. Redirects are followed by hand, each hop checked
the same way. Hosts in the operator setting TULIA_LOCAL_FETCH_HOSTS (the emulators and
test servers in dev/test; production refuses to start with any) are the only exception;
a shop can never set it.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx
from django.conf import settings

MAX_REDIRECTS = 3


class UnsafeAddress(Exception):
    """The URL is not http(s), or its host is not a public internet address."""


def _public_address(host: str, port: int) -> str:
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnsafeAddress(f"cannot resolve {host!r}") from exc
    addresses = {str(answer[4][0]) for answer in answers}
    for address in addresses:
        if not ipaddress.ip_address(address.split("%")[0]).is_global:
            raise UnsafeAddress(f"{host!r} is not a public address")
    return sorted(addresses)[0]


def pinned_request(url: str) -> tuple[str, dict[str, str], dict[str, str]]:
    """The URL rewritten to a checked address, with the Host header and TLS name to keep."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise UnsafeAddress("only http(s) addresses with a host are fetched")
    host = parts.hostname.lower()
    if host in {entry.lower() for entry in settings.TULIA_LOCAL_FETCH_HOSTS}:
        return url, {}, {}
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = _public_address(host, port)
    literal = f"[{address}]" if ":" in address else address
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    pinned = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    headers = {"Host": parts.netloc.rsplit("@", 1)[-1]}
    extensions = {"sni_hostname": host} if parts.scheme == "https" else {}
    return pinned, headers, extensions


@contextmanager
def stream_public(url: str, *, timeout: float) -> Iterator[httpx.Response]:
    """GET `url` (following up to MAX_REDIRECTS, each hop checked) as a streamed response."""
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            pinned, headers, extensions = pinned_request(url)
            request = client.build_request("GET", pinned, headers=headers, extensions=extensions)
            answer = client.send(request, stream=True)
            if not answer.is_redirect:
                try:
                    yield answer
                finally:
                    answer.close()
                return
            answer.close()
            url = urljoin(url, answer.headers.get("location", ""))
    raise UnsafeAddress("too many redirects")


def is_local_host(host: str) -> bool:
    """Is `host` one of the operator's local servers (never true in production)?"""
    return host.lower() in {entry.lower() for entry in settings.TULIA_LOCAL_FETCH_HOSTS}


def request_public(
    method: str,
    url: str,
    *,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    json: Any = None,
    https_only: bool = False,
) -> httpx.Response:
    """One API call to a shop-named host: each hop pinned to a checked public address.

    Redirects are followed only within the same scheme and host (a store moving its API
    elsewhere is refused, not followed); `https_only` refuses plain http except for the
    operator's local hosts.
    """
    origin = urlsplit(url)
    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            if (parts.scheme, parts.netloc) != (origin.scheme, origin.netloc):
                raise UnsafeAddress("redirect to another host refused")
            if https_only and parts.scheme != "https" and not is_local_host(parts.hostname or ""):
                raise UnsafeAddress("only https addresses are used")
            pinned, pin_headers, extensions = pinned_request(url)
            request = client.build_request(
                method, pinned, headers={**(headers or {}), **pin_headers},
                json=json, extensions=extensions,
            )  # fmt: skip
            answer = client.send(request)
            if not answer.is_redirect:
                return answer
            url = urljoin(url, answer.headers.get("location", ""))
    raise UnsafeAddress("too many redirects")
