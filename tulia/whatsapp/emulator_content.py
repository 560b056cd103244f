"""The emulator's Content API (content.twilio.com/v1), shaped like Twilio's JSON.

    POST /v1/Content                                 create (friendly_name, language,
                                                     variables, types.twilio/text.body)
    GET  /v1/Content                                 list the account's contents
    GET  /v1/Content/{HX…}                           fetch one
    POST /v1/Content/{HX…}/ApprovalRequests/whatsapp submit for WhatsApp approval
                                                     (name, category)
    GET  /v1/Content/{HX…}/ApprovalRequests          approval status and rejection reason

Content belongs to the account that created it; another account gets 404, as at Twilio.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tulia.whatsapp.emulator import Content, TwilioEmulator

_NAME = re.compile(r"^[a-z0-9_]{1,512}$")
_CATEGORIES = ("UTILITY", "MARKETING", "AUTHENTICATION")
Reply = tuple[int, dict[str, Any]]


def _error(status: int, code: int, message: str) -> Reply:
    return status, {"code": code, "message": message, "more_info": "", "status": status}


def _not_found() -> Reply:
    return _error(404, 20404, "The requested resource was not found")


def route(
    emulator: TwilioEmulator, account_sid: str, method: str, path: str, data: dict[str, Any]
) -> Reply:
    parts = path.split("/") if path else []
    if not parts:
        return (
            _create(emulator, account_sid, data)
            if method == "POST"
            else _list(emulator, account_sid)
        )
    with emulator.state.lock:
        content = emulator.state.contents.get(parts[0])
    if content is None or content.account_sid != account_sid:
        return _not_found()
    if parts[1:] == [] and method == "GET":
        return 200, _content_json(content)
    if parts[1:] == ["ApprovalRequests", "whatsapp"] and method == "POST":
        return _submit(emulator, content, data)
    if parts[1:] == ["ApprovalRequests"] and method == "GET":
        return 200, _approval_fetch_json(content)
    return _not_found()


def _create(emulator: TwilioEmulator, account_sid: str, data: dict[str, Any]) -> Reply:
    from tulia.whatsapp.emulator import Content, new_sid

    body = ((data.get("types") or {}).get("twilio/text") or {}).get("body") or ""
    if not data.get("friendly_name") or not data.get("language") or not body:
        return _error(400, 20001, "friendly_name, language and types.twilio/text.body are required")
    if len(body) > 1024:
        return _error(400, 63021, "Template text is longer than 1024 characters")
    content = Content(
        sid=new_sid("HX"),
        account_sid=account_sid,
        friendly_name=str(data["friendly_name"]),
        language=str(data["language"]),
        variables={str(k): str(v) for k, v in (data.get("variables") or {}).items()},
        body=body,
    )
    with emulator.state.lock:
        emulator.state.contents[content.sid] = content
    return 201, _content_json(content)


def _list(emulator: TwilioEmulator, account_sid: str) -> Reply:
    with emulator.state.lock:
        mine = [c for c in emulator.state.contents.values() if c.account_sid == account_sid]
    return 200, {"contents": [_content_json(c) for c in mine], "meta": {"page": 0}}


def _submit(emulator: TwilioEmulator, content: Content, data: dict[str, Any]) -> Reply:
    name, category = str(data.get("name") or ""), str(data.get("category") or "").upper()
    if not _NAME.match(name) or category not in _CATEGORIES:
        return _error(400, 20001, "name must be lowercase with underscores; category UTILITY, "
                      "MARKETING or AUTHENTICATION")  # fmt: skip
    status = "approved" if emulator.auto_approve else "received"
    with emulator.state.lock:
        content.approval = {
            "name": name, "category": category, "status": status, "rejection_reason": ""
        }  # fmt: skip
    approval = dict(content.approval)
    return 201, {**approval, "content_type": "twilio/text", "allow_category_change": True}


def _content_json(content: Content) -> dict[str, Any]:
    url = f"https://content.twilio.com/v1/Content/{content.sid}"
    fields = asdict(content)
    return {
        "sid": content.sid,
        "account_sid": content.account_sid,
        "friendly_name": fields["friendly_name"],
        "language": content.language,
        "variables": content.variables,
        "types": {"twilio/text": {"body": content.body}},
        "date_created": None,
        "date_updated": None,
        "url": url,
        "links": {
            "approval_create": f"{url}/ApprovalRequests/whatsapp",
            "approval_fetch": f"{url}/ApprovalRequests",
        },
    }


def _approval_fetch_json(content: Content) -> dict[str, Any]:
    approval = content.approval or {
        "name": "", "category": "", "status": "unsubmitted", "rejection_reason": ""
    }  # fmt: skip
    return {
        "sid": content.sid,
        "account_sid": content.account_sid,
        "whatsapp": {
            **approval,
            "type": "whatsapp",
            "content_type": "twilio/text",
            "allow_category_change": True,
        },
        "url": f"https://content.twilio.com/v1/Content/{content.sid}/ApprovalRequests",
    }
