"""OpenAPI generation for the tenant API: the error answers are part of the contract.

drf-spectacular documents only the success code, so a client generated from the schema
(and schemathesis) would treat a refused key, a validation error or a missing row as
undocumented. Every tenant-API operation may answer 401/403; those with a body may
answer 400; those addressing one row may answer 404. DRF renders all of them as a JSON
object (`{"detail": ...}` or field -> messages); a domain refusal (409) is
`{"code", "detail", "request_id"}`, mapped once in tulia.api.errors.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse

ERROR_BODY = OpenApiResponse(
    OpenApiTypes.OBJECT, description="DRF error: detail or field errors; a refusal: code and detail"
)


class TenantApiSchema(AutoSchema):
    # Codes a write may answer besides 400 (a view family with its own refusals adds them).
    write_refusals: tuple[str, ...] = ()

    def _error_codes(self) -> list[str]:
        codes = ["401", "403"]
        if self.method in ("POST", "PUT", "PATCH"):
            codes += ["400", *self.write_refusals]
        if "{" in self.path:
            codes.append("404")
        return codes

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(ERROR_BODY, code)
        return responses


class DeskApiSchema(TenantApiSchema):
    """The handoff desk refuses a move that breaks a desk rule (409; 403 for a ticket
    another agent holds), as tulia.api.errors maps every domain refusal."""

    write_refusals = ("409",)
