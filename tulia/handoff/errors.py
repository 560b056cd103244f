"""Errors of the handoff desk; each carries a stable code for the API and the tools."""

from __future__ import annotations

from tulia.errors import DomainError


class HandoffError(DomainError):
    code = "handoff_error"


class IllegalTransition(HandoffError):
    code = "illegal_transition"


class AlreadyClaimed(HandoffError):
    code = "already_claimed"


class NotYourTicket(HandoffError):
    code = "not_your_ticket"


class NotStaff(HandoffError):
    code = "not_staff"


def actor_id(user: object) -> int:
    """The signed-in staff user's id; anonymous callers never reach the desk."""
    pk = getattr(user, "pk", None)
    if not isinstance(pk, int):
        raise NotStaff("sign in as the tenant's staff first")
    return pk
