"""Admin: connect a store (credentials write-only, checked against the store before they
are saved), run the import or a reconcile, and work the conflict queue."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from tenants.admin_scoping import ReadOnlyScopedAdmin, TenantScopedAdmin
from tenants.crypto import Secret
from tenants.roles import is_owner, role_action
from tulia.catalog_sync import connectors
from tulia.catalog_sync.errors import SyncError
from tulia.catalog_sync.models import (
    ImportStatus,
    Platform,
    ReconcileRun,
    StoreConnection,
    SyncConflict,
    UpstreamOrder,
    WebhookDelivery,
)
from tulia.catalog_sync.sync import begin_import

SECRETS = ("access_token", "consumer_secret", "webhook_secret")
KEEP_HELP = "Stored encrypted. Leave blank to keep the current value."


def _secret_field(help_text: str) -> forms.CharField:
    return forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=f"{help_text} {KEEP_HELP}",
    )


class StoreConnectionForm(forms.ModelForm):
    access_token = _secret_field("Shopify: the Admin API access token.")
    consumer_secret = _secret_field("WooCommerce: the REST API consumer secret.")
    webhook_secret = _secret_field(
        "Shopify: the app's client secret (it signs webhooks). WooCommerce: leave blank."
    )

    class Meta:
        model = StoreConnection
        fields = (
            "tenant",
            "platform",
            "shop_domain",
            "store_url",
            "api_version",
            "access_token",
            "consumer_key",
            "consumer_secret",
            "webhook_secret",
            "stock_owner",
            "is_active",
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for name in SECRETS:
            typed = cleaned.get(name) or ""
            stored = getattr(self.instance, name, None) if self.instance.pk else None
            cleaned[name] = Secret(typed) if typed else (stored or Secret(""))
        if cleaned.get("platform") == Platform.SHOPIFY and not cleaned["webhook_secret"]:
            self.add_error("webhook_secret", "Shopify signs webhooks with the app's secret.")
        if not self.errors:
            self._check_store(cleaned)
        return cleaned

    def _check_store(self, cleaned: dict[str, Any]) -> None:
        probe = StoreConnection(**{k: v for k, v in cleaned.items() if k != "tenant"})
        try:
            probe.clean()
            connectors.check_credentials(probe)
        except SyncError as exc:
            message = f"The store did not accept the connection: {exc.message}"
            raise forms.ValidationError(message) from exc


@admin.register(StoreConnection)
class StoreConnectionAdmin(TenantScopedAdmin):
    form = StoreConnectionForm
    list_display = ("__str__", "import_status", "imported_count", "stock_owner", "tenant")
    readonly_fields = (
        "import_status",
        "imported_count",
        "last_error",
        "import_progress_at",
        "import_finished_at",
    )
    actions = ("start_import", "restart_import", "reconcile_now")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        connectors.prepare(obj)
        super().save_model(request, obj, form, change)
        try:
            connectors.register_webhooks(obj)
        except SyncError as exc:
            messages.warning(
                request, f"Webhooks not registered ({exc.message}); the reconcile still runs."
            )
        if not change:
            begin_import(obj.tenant_id, obj.pk)
            messages.info(request, "Connected. The catalog import has started.")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = tuple(super().get_readonly_fields(request, obj))
        return (*fields, "webhook_address") if obj is not None and is_owner(request) else fields

    @admin.display(description="Webhook address")
    def webhook_address(self, obj: StoreConnection) -> str:
        return connectors.webhook_url(obj)

    @role_action("catalog_sync.connection.import", description="Import the catalog now")
    def start_import(self, request: HttpRequest, queryset: QuerySet[StoreConnection]) -> None:
        started = sum(begin_import(c.tenant_id, c.pk) for c in queryset)
        messages.info(request, f"{started} import(s) started.")

    @role_action(
        "catalog_sync.connection.import",
        description="Restart a lost or failed import (resumes after the last saved page)",
    )
    def restart_import(self, request: HttpRequest, queryset: QuerySet[StoreConnection]) -> None:
        restarted = 0
        for connection in queryset:
            if connection.import_status not in (ImportStatus.RUNNING, ImportStatus.FAILED):
                continue  # nothing lost: "Import the catalog now" starts a new one
            begin_import(connection.tenant_id, connection.pk, restart=True)
            where = (
                f"page cursor {connection.import_cursor!r}"
                if connection.import_cursor
                else ("the first page")
            )
            self.log_change(
                request,
                connection,
                f"import restarted ({connection.import_status}, last error "
                f"{connection.last_error or 'none'}) from {where}",
            )
            restarted += 1
        messages.info(request, f"{restarted} import(s) restarted.")

    @role_action(
        "catalog_sync.connection.reconcile", description="Compare with the store and repair"
    )
    def reconcile_now(self, request: HttpRequest, queryset: QuerySet[StoreConnection]) -> None:
        from tulia.catalog_sync.tasks import reconcile_connection

        for connection in queryset:
            reconcile_connection.delay(str(connection.tenant_id), connection.pk)
        messages.info(request, "Reconcile started; its report appears under Reconcile runs.")


@admin.register(SyncConflict)
class SyncConflictAdmin(ReadOnlyScopedAdmin):
    list_display = ("created_at", "kind", "external_id", "item", "detail", "resolved_at")
    list_filter = ("kind", ("resolved_at", admin.EmptyFieldListFilter))
    actions = ("resolve",)

    @role_action("catalog_sync.conflict.resolve", description="Mark resolved")
    def resolve(self, request: HttpRequest, queryset: QuerySet[SyncConflict]) -> None:
        done = queryset.filter(resolved_at__isnull=True).update(
            resolved_at=timezone.now(), resolved_by=f"staff:{request.user.get_username()}"[:80]
        )
        messages.info(request, f"{done} conflict(s) resolved.")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyScopedAdmin):
    list_display = ("received_at", "topic", "delivery_id", "status", "error")
    list_filter = ("status", "topic")


@admin.register(ReconcileRun)
class ReconcileRunAdmin(ReadOnlyScopedAdmin):
    list_display = ("started_at", "finished_at", "checked", "repaired", "error")
    readonly_fields = ("drift",)


@admin.register(UpstreamOrder)
class UpstreamOrderAdmin(ReadOnlyScopedAdmin):
    """Paid WhatsApp orders sent to the store (an empty store id: still being retried)."""

    list_display = ("order", "key", "upstream_id", "attempts", "pushed_at", "last_error")
