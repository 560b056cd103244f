"""Per-tenant API keys for the shop's own systems. Only a hash of the secret is kept.

The key must be found before any tenant is known, so RLS has one narrow extra read:
a row whose public prefix equals the one the caller presented in this transaction.
"""

from __future__ import annotations

from django.db import models

from tenants.models import TenantOwnedModel

PREFIX_SETTING = "tulia.api_key_prefix"


class ApiKey(TenantOwnedModel):
    rls_extra_read = f"prefix = current_setting('{PREFIX_SETTING}', true)"

    name = models.CharField(max_length=80, help_text="Which system uses it, e.g. 'POS sync'")
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API key"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="apikey_unique_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
