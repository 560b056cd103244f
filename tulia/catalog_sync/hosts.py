"""Where a store connection may send the shop's credentials.

Shopify stores live at `<name>.myshopify.com` and nowhere else, so the domain is held to
that pattern (a custom storefront domain is not the Admin API). WooCommerce runs on the
merchant's own host: any public https URL, resolved and pinned at every request by
tulia.netguard, so a name that resolves to our own network today is refused even if it
was public when saved. The operator's local hosts (TULIA_LOCAL_FETCH_HOSTS: the
emulators in dev and test, empty in production by force) are the one exception.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from tulia.netguard import is_local_host

MYSHOPIFY = re.compile(r"^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$")


def _local(value: str) -> bool:
    parts = urlsplit(f"//{value}")
    try:
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        return False
    return is_local_host(parts.hostname or "") and parts.netloc == value


def shop_domain_problem(domain: str) -> str:
    """Why `domain` is not a Shopify shop domain we may call; "" when it is."""
    if MYSHOPIFY.fullmatch(domain or "") or (domain and _local(domain)):
        return ""
    return "must be your shop's own name.myshopify.com domain"


def shopify_graphql_url(domain: str, api_version: str) -> str:
    problem = shop_domain_problem(domain)
    if problem:
        raise ValueError(problem)
    scheme = "http" if _local(domain) else "https"
    return f"{scheme}://{domain}/admin/api/{api_version}/graphql.json"


def store_url_problem(url: str) -> str:
    """Why `url` cannot be a WooCommerce store address; "" when it may be (the address
    itself is checked again, resolved and pinned, at every request)."""
    try:
        parts = urlsplit(url or "")
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError:
        return "not a valid URL"
    host = parts.hostname or ""
    if parts.username or parts.password:
        return "user information is not allowed in the URL"
    if parts.query or parts.fragment:
        return "give the store's address without ?query or #fragment"
    if parts.scheme == "https" and host:
        return ""
    if parts.scheme == "http" and is_local_host(host):
        return ""
    return "must be the store's https:// address"
