"""How staff are named: to customers by their display name only, to colleagues also by login."""

from __future__ import annotations

from typing import Any


def public_name(user: Any) -> str:
    """The name a customer may read: the membership's display name, else the user's
    first name (a surname is not the customer's business); empty when neither is set
    (the caller says "someone from our team"). Never the login."""
    if user is None:
        return ""
    membership = getattr(user, "tenant_membership", None)
    named = getattr(membership, "display_name", "") if membership is not None else ""
    return str(named or user.get_short_name() or "").strip()


def staff_name(user: Any) -> str:
    """The name colleagues see in the desk: the public name, else the login."""
    if user is None:
        return ""
    return public_name(user) or str(user.get_username())
