"""The admin in the staff member's own language, chosen once and kept per login.

The choice is stored per user (StaffPreference) and remembered in the session, so a
request reads it from the session; the database is asked once per session.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme

from tulia.console.models import ADMIN_LANGUAGES, StaffPreference

SESSION_KEY = "console_language"
KNOWN = frozenset(code for code, _name in ADMIN_LANGUAGES)


class StaffLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = _language_of(request)
        if language is None:
            return self.get_response(request)
        with translation.override(language):
            request.LANGUAGE_CODE = language
            response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        return response


def _language_of(request: HttpRequest) -> str | None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not user.is_staff:
        return None
    remembered = request.session.get(SESSION_KEY)
    if remembered in KNOWN:
        return str(remembered)
    stored = StaffPreference.objects.filter(user_id=user.pk).values_list("language", flat=True)
    language = stored.first() or "en"
    request.session[SESSION_KEY] = language
    return language


def choose_language(request: HttpRequest) -> HttpResponse:
    """POST language=sw|en: kept for this login, used from the next page on."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    language = str(request.POST.get("language", ""))
    if language in KNOWN:
        StaffPreference.objects.update_or_create(
            user_id=request.user.pk, defaults={"language": language}
        )
        request.session[SESSION_KEY] = language
    back = str(request.POST.get("next", ""))
    safe = url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()})
    return HttpResponseRedirect(back if safe and back else "/admin/")
