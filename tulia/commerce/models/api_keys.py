"""Per-tenant API keys for the shop's own systems. Only a hash of the secret is kept.

The key must be found before any tenant is known, so RLS has one narrow extra read:
a row whose public prefix equals the one the caller presented in this transaction.

A key may carry scopes beyond the catalog, orders and offers every key reaches. The
conversations scope lets a helpdesk read chats and reply, and a reply is a person
speaking to a customer: such a key is bound to one staff login and acts as that agent.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from tenants.models import TenantOwnedModel

PREFIX_SETTING = "tulia.api_key_prefix"


class ApiScope(models.TextChoices):
    CONVERSATIONS = "conversations", "Conversations: read chats and reply as the key's agent"


class ApiKey(TenantOwnedModel):
    rls_extra_read = f"prefix = current_setting('{PREFIX_SETTING}', true)"

    name = models.CharField(
        max_length=80, help_text=_("Which system uses it, e.g. 'POS sync'"), verbose_name=_("name")
    )
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    secret_hash = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True)
    scopes = ArrayField(
        models.CharField(max_length=24, choices=ApiScope.choices), default=list, blank=True
    )
    agent = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,  # a removed login silences the key, it never speaks alone
        related_name="+",
        help_text=_("The staff login this key speaks as; required for the conversations scope"),
    )

    class Meta:
        verbose_name = "API key"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="apikey_unique_name"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def clean(self) -> None:
        if ApiScope.CONVERSATIONS in self.scopes and self.agent_id is None:
            raise ValidationError({"agent": "A key with the conversations scope acts as an agent."})

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None
