"""The admin site a shop works in: its home is the day, its menu is in the shop's words.

Django's admin stays the frame. This site changes only what a person sees: the home
page (tulia.console.today; an agent lands on the inbox), the menu (sections a shop
understands, developer-only pages for platform operators alone) and "View site" (the
shop's own storefront page). Who may open what stays with each ModelAdmin and
tenants/roles.py.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.urls import NoReverseMatch, URLPattern, URLResolver, path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tenants.admin_scoping import request_tenant_id
from tenants.models import Tenant
from tenants.roles import AGENT, request_role
from tulia.console.language import choose_language
from tulia.console.today import shop_today

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

_View = TypeVar("_View", bound=Callable[..., HttpResponseBase])

# (section key, title, ((model label, menu name), ...)) in the order a shop works.
SECTIONS: tuple[tuple[str, StrOrPromise, tuple[tuple[str, StrOrPromise], ...]], ...] = (
    ("today", _("Today"), (
        ("handoff.HandoffTicket", _("Inbox")),
        ("tenants.Customer", _("Customers")),
        ("commerce.Order", _("Orders")),
        ("returns.ReturnRequest", _("Returns")),
    )),
    ("shop", _("Products and shop page"), (
        ("commerce.CatalogItem", _("Products")),
        ("commerce.Category", _("Categories")),
        ("commerce.Offer", _("Offers and coupons")),
        ("campaigns.Campaign", _("Broadcasts")),
        ("catalog_sync.StoreConnection", _("Shopify or WooCommerce store")),
        ("catalog_sync.SyncConflict", _("Store sync problems")),
        ("storefront.ShopProfile", _("Shop page")),
        ("storefront.SourceVisits", _("Shop page visits")),
    )),
    ("money", _("Money"), (
        ("payments.PaymentToReconcile", _("Payments to check")),
        ("payments.PaymentRequest", _("Payments")),
        ("payments.MpesaAccount", _("M-Pesa account")),
        ("payments.PesapalAccount", _("Card payments (PesaPal)")),
    )),
    ("knowledge", _("What the bot knows"), (
        ("kb.KnowledgeGap", _("Questions the bot could not answer")),
        ("kb.Document", _("Documents")),
        ("kb.ConversationSummary", _("Answers from chats")),
        ("kb.KbSettings", _("Answer settings")),
    )),
    ("settings", _("Settings"), (
        ("tenants.Tenant", _("Shop settings")),
        ("tenants.TenantMembership", _("Staff")),
        ("handoff.CannedReply", _("Saved replies")),
        ("handoff.AgentPresence", _("Staff availability")),
        ("returns.ReturnPolicy", _("Return policy")),
        ("commerce.FulfilmentSettings", _("Delivery settings")),
        ("campaigns.MessagingSettings", _("Reminders and quiet hours")),
        ("whatsapp.MessageTemplate", _("WhatsApp message templates")),
        ("commerce.ApiKey", _("API keys")),
    )),
)  # fmt: skip
# An agent's menu: the people waiting, who they are, what they bought, saved replies.
AGENT_MODELS = frozenset(
    {"handoff.HandoffTicket", "tenants.Customer", "commerce.Order", "handoff.CannedReply"}
)
# An operator's home lists shops; beyond this many, the shop list is the place to look.
OPERATOR_SHOPS = 20


class ShopAdminSite(admin.AdminSite):
    site_header = _("Tulia shop admin")
    site_title = "Tulia"
    index_title = _("Your shop")

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        if request_role(request) == AGENT:
            return redirect("admin:handoff_handoffticket_changelist")
        now = timezone.now()
        today = [shop_today(tenant, now) for tenant in _shops(request)]
        return super().index(request, {**(extra_context or {}), "shops_today": today})

    def admin_view(self, view: _View, cacheable: bool = False) -> _View:
        # Every ModelAdmin view passes through here as a bound method of its ModelAdmin,
        # so the door to a developer page is checked once for all of them: changelist,
        # add, change, delete, history. Hiding the menu entry alone left the URL open.
        model_admin = getattr(view, "__self__", None)
        if isinstance(model_admin, admin.ModelAdmin):
            label = model_admin.model._meta.label
            if label in DEVELOPER_LABELS:
                view = cast("_View", _operators_only(view))
            elif label == "tenants.Tenant":
                view = cast("_View", _own_shop_only(view))
        return super().admin_view(view, cacheable)

    def get_urls(self) -> list[URLPattern | URLResolver]:
        language = path("language/", self.admin_view(choose_language), name="console_language")
        return [language, *super().get_urls()]

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        context = super().each_context(request)
        context["site_url"] = _storefront_url(request)
        return context

    def get_app_list(self, request: HttpRequest, app_label: str | None = None) -> list[Any]:
        if app_label is not None:
            return _without_developer_pages(request, super().get_app_list(request, app_label))
        by_label = {
            entry["model"]._meta.label: entry
            for app in self._build_app_dict(request).values()
            for entry in app["models"]
        }
        sections = _sections(request, by_label)
        if request.user.is_superuser:
            shown = {label for _key, _title, models in SECTIONS for label, _name in models}
            rest = [entry for label, entry in sorted(by_label.items()) if label not in shown]
            sections.append(_section("platform", _("Platform (operators only)"), rest))
        return sections


def _sections(request: HttpRequest, by_label: dict[str, Any]) -> list[dict[str, Any]]:
    agent = request_role(request) == AGENT
    sections = []
    for key, title, models in SECTIONS:
        entries = []
        for label, name in models:
            entry = by_label.get(label)
            if entry is None or (agent and label not in AGENT_MODELS):
                continue
            entries.append(_renamed(request, label, entry, name))
        if entries:
            sections.append(_section(key, title, entries))
    return sections


def _renamed(request: HttpRequest, label: str, entry: dict[str, Any], name: Any) -> dict[str, Any]:
    renamed = {**entry, "name": name}
    tenant_id = request_tenant_id(request)
    if label == "tenants.Tenant" and tenant_id is not None:
        # A shop has one settings page: go straight to it, not to a list of one.
        renamed["admin_url"] = reverse("admin:tenants_tenant_change", args=[tenant_id])
        renamed["add_url"] = None
    return renamed


def _section(key: str, title: Any, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": title,
        "app_label": key,
        "app_url": entries[0]["admin_url"] if entries else "",
        "has_module_perms": True,
        "models": entries,
    }


# Pages about the platform's machinery rather than the shop (tool calls, raw provider
# events and webhook bodies, message records, the consent ledger's rows): operators only,
# by menu and by URL. Not among them, because a shop needs them: a conversation (the
# inbox links to its page), the shop's WhatsApp number and its messaging limit (issue 16
# shows usage there), messages the gate did not send and why, and the shop's model costs.
# The shop list is guarded apart.
DEVELOPER_LABELS = frozenset(
    {
        "tools.ToolCall", "payments.PaymentEvent",
        "conversations.InboundMessage", "conversations.OutboundMessage",
        "tenants.ConsentEvent", "catalog_sync.WebhookDelivery",
    }
)  # fmt: skip


def _operators_only(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if not request.user.is_superuser:
            raise Http404  # a shop's staff learn nothing, not even that the page exists
        return view(request, *args, **kwargs)

    return guarded


def _own_shop_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """The list of shops is the operators'; a shop's staff go to their own settings page
    (where admin also sends an owner after saving)."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if request.user.is_superuser or view.__name__ != "changelist_view":
            return view(request, *args, **kwargs)
        tenant_id = request_tenant_id(request)
        if tenant_id is None:
            raise Http404
        return redirect("admin:tenants_tenant_change", tenant_id)

    return guarded


def _without_developer_pages(request: HttpRequest, apps: list[Any]) -> list[Any]:
    if request.user.is_superuser:
        return apps
    for app in apps:
        app["models"] = [m for m in app["models"] if m["model"]._meta.label not in DEVELOPER_LABELS]
    return [app for app in apps if app["models"]]


def _shops(request: HttpRequest) -> list[Tenant]:
    if request.user.is_superuser:
        return list(Tenant.objects.order_by("name")[:OPERATOR_SHOPS])
    tenant_id = request_tenant_id(request)
    return list(Tenant.objects.filter(pk=tenant_id)) if tenant_id else []


def _storefront_url(request: HttpRequest) -> str | None:
    """The shop's own page for its staff; operators have no one site to view."""
    membership = getattr(request, "tenant_membership", None)
    if membership is None:
        return None
    try:
        return reverse("storefront:catalog", args=[membership.tenant.slug])
    except NoReverseMatch:
        return None
