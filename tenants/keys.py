"""Redis keys are always prefixed with the tenant id (SPEC §2)."""

from __future__ import annotations

from uuid import UUID


def tenant_key(tenant_id: UUID | str, *parts: object) -> str:
    if not tenant_id:
        raise ValueError("a tenant id is required for a Redis key")
    suffix = ":".join(str(part) for part in parts)
    return f"t:{UUID(str(tenant_id))}:{suffix}"
