"""Errors the tenant layer raises to its callers."""


class NotFound(LookupError):
    """Absent and not-yours look the same, so ids cannot be probed across tenants."""
