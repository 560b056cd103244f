"""Where provider requests may go: the providers' documented hosts, or the operator's list.

A shop types its M-Pesa/PesaPal base URL in admin, and our server then sends its
credentials there. Without this check an owner could aim those requests at any address
our server reaches (SSRF). Other hosts (the local emulators) are allowed only through
the platform setting TULIA_PROVIDER_HOST_ALLOWLIST, never by a shop.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

from payments.errors import ProviderError

# protocols.md §2.1 and §3.1.
DARAJA_HOSTS = {
    "sandbox": "https://sandbox.safaricom.co.ke",
    "production": "https://api.safaricom.co.ke",
}
PESAPAL_HOSTS = {
    "sandbox": "https://cybqa.pesapal.com/pesapalv3",
    "production": "https://pay.pesapal.com/v3",
}


def base_url_problem(url: str, documented: dict[str, str]) -> str:
    """Why `url` may not be a provider base URL; "" when it may."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "not a valid URL"
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        return "not an http(s) URL"
    if parts.username or parts.password:
        return "user information is not allowed in the URL"
    allowlist = {entry.lower() for entry in settings.TULIA_PROVIDER_HOST_ALLOWLIST}
    if host in allowlist or (port is not None and f"{host}:{port}" in allowlist):
        return ""
    known = {name for base in documented.values() if (name := urlsplit(base).hostname)}
    if host in known and parts.scheme == "https" and port in (None, 443):
        return ""
    return f"only the provider's documented hosts are allowed ({', '.join(sorted(known))})"


def checked_base_url(url: str, documented: dict[str, str]) -> str:
    """`url` without its trailing slash, refused (not retryable) if it is not allowed.

    Checked at request time as well as on save: a row written before this check, or
    an allowlist narrowed since, must not send a request either.
    """
    problem = base_url_problem(url, documented)
    if problem:
        raise ProviderError("host_not_allowed", problem, retryable=False)
    return url.rstrip("/")
