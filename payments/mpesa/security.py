"""Optional check that a Daraja callback comes from a known Safaricom address.

Daraja signs nothing (protocols.md §2.6), so the URL token is the main control. The
list below is the one community libraries agree on; Safaricom does not publish it,
so the default mode only logs a mismatch and "enforce" is the tenant's choice.
"""

from __future__ import annotations

import ipaddress
import logging

from payments.models import MpesaAccount

logger = logging.getLogger("tulia.security")

SAFARICOM_CALLBACK_IPS = frozenset(
    ipaddress.ip_address(ip)
    for ip in (
        "196.201.214.200",
        "196.201.214.206",
        "196.201.214.207",
        "196.201.214.208",
        "196.201.213.114",
        "196.201.213.44",
        "196.201.212.127",
        "196.201.212.128",
        "196.201.212.129",
        "196.201.212.132",
        "196.201.212.136",
        "196.201.212.138",
        "196.201.212.69",
        "196.201.212.74",
    )
)


def _known(ip: str | None) -> bool:
    try:
        return ip is not None and ipaddress.ip_address(ip) in SAFARICOM_CALLBACK_IPS
    except ValueError:
        return False


def source_allowed(mode: str, ip: str | None, *, tenant_id: object) -> bool:
    """False only when the tenant enforces the list and the source is not on it."""
    if mode == MpesaAccount.IpCheck.OFF or _known(ip):
        return True
    logger.warning("daraja callback for tenant %s from unlisted address %s", tenant_id, ip)
    return mode != MpesaAccount.IpCheck.ENFORCE
