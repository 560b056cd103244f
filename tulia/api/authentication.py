"""DRF authentication by tenant API key, and the view base that runs in its tenant.

`TenantAPIView` enters the key's `tenant_context` after authentication and leaves it
after the response is finalised; an exception rolls back the view's writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any
from uuid import UUID

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.schemas.inspectors import ViewInspector

from tenants.context import tenant_context
from tulia.api.keys import verify_key
from tulia.api.schema import TenantApiSchema
from tulia.commerce.models import ApiKey


class ApiClient:
    """The `request.user` of an API call: a shop's system, not a person."""

    is_authenticated = True
    is_active = True
    is_staff = False
    is_superuser = False

    def __init__(self, key: ApiKey) -> None:
        self.key = key
        self.tenant_id: UUID = key.tenant_id

    def __str__(self) -> str:
        return f"api key {self.key.prefix}"


class TenantApiKeyAuthentication(BaseAuthentication):
    keyword = b"bearer"

    def authenticate(self, request: Request) -> tuple[ApiClient, ApiKey] | None:
        header = get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword:
            return None
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("malformed Authorization header")
        key = verify_key(header[1].decode("latin-1"))
        if key is None:
            raise exceptions.AuthenticationFailed("invalid or revoked API key")
        return ApiClient(key), key

    def authenticate_header(self, request: Request) -> str:
        return "Bearer"


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "tulia.api.authentication.TenantApiKeyAuthentication"
    name = "tenantApiKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "tulia_<prefix>_<secret>"}


class TenantScoped:
    """Mixin for DRF views: everything after authentication runs in the key's tenant."""

    authentication_classes: Sequence[type[BaseAuthentication]] = [TenantApiKeyAuthentication]
    schema: ViewInspector | None = TenantApiSchema()  # documents the 400/401/403/404 answers too
    _tenant_scope: ExitStack | None = None

    def tenant_id(self) -> UUID:
        user = self.request.user  # type: ignore[attr-defined]
        if not isinstance(user, ApiClient):
            raise exceptions.NotAuthenticated()
        return user.tenant_id

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        scope = ExitStack()
        scope.enter_context(tenant_context(self.tenant_id()))
        self._tenant_scope = scope

    def handle_exception(self, exc: Exception) -> Response:
        scope, self._tenant_scope = self._tenant_scope, None
        if scope is not None:
            scope.__exit__(type(exc), exc, exc.__traceback__)  # roll the view's writes back
        return super().handle_exception(exc)  # type: ignore[misc]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        scope, self._tenant_scope = self._tenant_scope, None
        if scope is not None:
            scope.close()
        return response
