"""The one shape of a domain error: a stable code, a message, retryable, and facts.

Every refusal or failure a domain function raises (commerce, handoff, tools, tenancy
lookups) is a DomainError. The code says what happened to a program (the tool layer,
the API, the flows); the message says it to a person reading logs or the desk; the
facts carry what a customer may be told (an item's name, units in stock), worded by the
text catalog (`tulia.text`, "error.<code>") in the customer's language. A message is
never shown to a customer.

It is mapped to a caller's shape in one place each: `tools.errors` (ToolError) and the
API's `Refused` (HTTP 409 with the code).
"""

from __future__ import annotations

Fact = str | int


class DomainError(Exception):
    code: str = "domain_error"  # subclasses name their own
    retryable: bool = False

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        retryable: bool | None = None,
        **facts: Fact,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if retryable is not None:
            self.retryable = retryable
        self.facts: dict[str, Fact] = facts
