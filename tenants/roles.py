"""Who may do what: the one table of operations by staff role.

Viewing and ordinary add/change/delete follow `TenantScopedAdmin`'s permissions; this
table covers the named operations on top of them: admin actions, desk operations and the
handoff API. Anything not listed is refused to everyone but superusers, so a new action
that forgets to name its operation is refused rather than open (tests/security/
test_role_matrix.py walks every registered admin action as an agent to keep it so).

Tenant API keys (tulia/api) are issued by owners and act for the shop's own systems with
the owner's reach; they never reach the operations below, except that a key with the
conversations scope replies (and so claims) as the one agent it is bound to.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib import admin
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest

OWNER = "owner"
AGENT = "agent"
_EVERYONE = frozenset({OWNER, AGENT})
_OWNERS = frozenset({OWNER})

DESK_OPERATIONS = (
    "claim", "reply", "note", "transfer", "hand_back", "resolve", "close", "reopen",
    "display_name",  # an agent's own name as customers see it
)  # fmt: skip

MATRIX: dict[str, frozenset[str]] = {
    # API keys unlock the shop's whole catalog and orders.
    "commerce.api_key.revoke": _OWNERS,
    # The orders CSV carries every customer's phone number: the owner's to take away.
    "commerce.order.export_csv": _OWNERS,
    # What the bot may tell customers is the owner's call.
    "kb.document.reindex": _OWNERS,
    "kb.summary.approve": _OWNERS,
    "kb.summary.withdraw": _OWNERS,
    "kb.gap.answer": _OWNERS,
    # Clearing the reconciliation queue is the shop's statement that the money is right.
    "payments.review.mark_reviewed": _OWNERS,
    # Callback secrets guard who may tell us a payment happened.
    "payments.secrets.start_rotation": _OWNERS,
    "payments.secrets.confirm_rotation": _OWNERS,
    # Registering C2B URLs points the shortcode's payments at us (sandbox, from admin).
    "payments.c2b.register": _OWNERS,
    # Confirming or refusing a held payment from the M-Pesa statement moves money state.
    "payments.statement.confirm": _OWNERS,
    "payments.statement.refuse": _OWNERS,
    # Store sync: an import or reconcile rewrites the catalog the bot quotes from, and
    # resolving a conflict is the owner's word that the catalog is right.
    "catalog_sync.connection.import": _OWNERS,
    "catalog_sync.connection.reconcile": _OWNERS,
    "catalog_sync.conflict.resolve": _OWNERS,
    # Matching unknown money to an order, refunding it, ignoring a queue item, or
    # confirming held payments from an uploaded statement: the shop's word on its money.
    "payments.reconcile.match": _OWNERS,
    "payments.reconcile.refund": _OWNERS,
    "payments.reconcile.ignore": _OWNERS,
    "payments.statement.upload": _OWNERS,
    # What the shop sends outside the 24-hour window is the owner's word to customers.
    "whatsapp.template.submit": _OWNERS,
    "whatsapp.template.sync": _EVERYONE,
    # Returns: agents decide and receive; money going back is the owner's call.
    "returns.request.approve": _EVERYONE,
    "returns.request.reject": _EVERYONE,
    "returns.request.receive": _EVERYONE,
    "returns.request.refund": _OWNERS,
    "commerce.order.refund": _OWNERS,
    # What a shop broadcasts, and when, is the owner's call; anyone may stop a mistake.
    "campaigns.campaign.send": _OWNERS,
    "campaigns.campaign.resume": _OWNERS,
    "campaigns.campaign.cancel": _OWNERS,
    "campaigns.campaign.pause": _EVERYONE,
    # The desk is the agents' work.
    "handoff.ticket.claim_selected": _EVERYONE,
    **{f"handoff.desk.{op}": _EVERYONE for op in DESK_OPERATIONS},
    "handoff.desk.presence": _EVERYONE,
}

F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


def request_role(request: HttpRequest) -> str | None:
    membership = getattr(request, "tenant_membership", None)
    return membership.role if membership else None


def is_owner(request: HttpRequest) -> bool:
    """The shop's owner, or a platform superuser acting for it."""
    user = getattr(request, "user", None)
    return bool((user is not None and user.is_superuser) or request_role(request) == OWNER)


def may(request: HttpRequest, operation: str) -> bool:
    """May the signed-in user run `operation`? Unknown operations: superusers only."""
    user = getattr(request, "user", None)
    if user is not None and user.is_superuser:
        return True
    return role_may(request_role(request), operation)


def role_may(role: str | None, operation: str) -> bool:
    return role in MATRIX.get(operation, frozenset())


def role_action(operation: str, *, description: StrOrPromise) -> Callable[[F], F]:
    """`@admin.action` that names its row in MATRIX; `RoleCheckedActions` enforces it."""
    if operation not in MATRIX:
        raise ImproperlyConfigured(f"admin action {operation!r} has no row in tenants.roles")

    def decorate(func: F) -> F:
        action = admin.action(description=description)(func)
        action.role_operation = operation  # type: ignore[attr-defined]
        return action

    return decorate


def action_allowed(request: HttpRequest, func: Callable[..., Any]) -> bool:
    """An action is offered if MATRIX allows it, or Django's own check guards it."""
    operation = getattr(func, "role_operation", None)
    if operation is not None:
        return may(request, operation)
    # Django's built-ins (delete_selected) declare allowed_permissions, which
    # ModelAdmin.get_actions has already checked against has_<p>_permission.
    return hasattr(func, "allowed_permissions") or request.user.is_superuser


class RoleCheckedActions(admin.ModelAdmin):
    """Offers (and so accepts: Django only runs offered actions) what the role may run."""

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        return {
            name: entry
            for name, entry in actions.items()
            if entry is not None and action_allowed(request, entry[0])
        }
