"""Typed shapes of Twilio's WhatsApp webhook forms (protocols.md §1.1 and §1.6).

Twilio adds parameters without notice, so unknown keys are ignored here (the signature
was already checked over all of them). Known keys are validated strictly: a form that
does not parse is a 400, never a half-understood message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tulia.whatsapp.sanitize import clean_text

MAX_MEDIA = 10
InboundKind = Literal[
    "text", "button", "list", "image", "sticker", "voice", "video", "document", "location"
]
_SID = r"^[A-Z]{2}[0-9a-fA-F]{32}$"


class MalformedForm(ValueError):
    """The webhook form is missing or has invalid Twilio parameters."""


class Media(BaseModel):
    model_config = ConfigDict(frozen=True)

    url: str = Field(max_length=1000)
    content_type: str = Field(max_length=100)

    @field_validator("url", "content_type")
    @classmethod
    def _no_nul(cls, value: str) -> str:
        # Stored in a jsonb column, which refuses a NUL character.
        if "\x00" in value:
            raise ValueError("NUL character in a media field")
        return value


class Location(BaseModel):
    model_config = ConfigDict(frozen=True)

    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    address: str = ""
    label: str = ""


class InboundContent(BaseModel):
    """What the customer sent, independent of Twilio's field names."""

    model_config = ConfigDict(frozen=True)

    kind: InboundKind
    text: str = ""
    media: list[Media] = Field(default_factory=list)
    location: Location | None = None
    button_payload: str = ""
    list_id: str = ""
    profile_name: str = ""
    replied_to_sid: str = ""


class _Form(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    message_sid: str = Field(alias="MessageSid", pattern=_SID)
    account_sid: str = Field(alias="AccountSid", pattern=r"^AC[0-9a-fA-F]{32}$")
    from_: str = Field(alias="From", min_length=1, max_length=64)
    to: str = Field(alias="To", min_length=1, max_length=64)


class InboundForm(_Form):
    """The "a message comes in" webhook."""

    body: str = Field(default="", alias="Body")
    num_media: int = Field(default=0, alias="NumMedia", ge=0, le=MAX_MEDIA)
    profile_name: str = Field(default="", alias="ProfileName")
    wa_id: str = Field(default="", alias="WaId", max_length=32)
    message_type: str = Field(default="", alias="MessageType", max_length=32)
    latitude: float | None = Field(default=None, alias="Latitude", ge=-90, le=90)
    longitude: float | None = Field(default=None, alias="Longitude", ge=-180, le=180)
    address: str = Field(default="", alias="Address", max_length=500)
    label: str = Field(default="", alias="Label", max_length=200)
    button_text: str = Field(default="", alias="ButtonText", max_length=200)
    button_payload: str = Field(default="", alias="ButtonPayload", max_length=256)
    list_id: str = Field(default="", alias="ListId", max_length=200)
    list_title: str = Field(default="", alias="ListTitle", max_length=200)
    replied_to_sid: str = Field(default="", alias="OriginalRepliedMessageSid", max_length=64)
    media: list[Media] = Field(default_factory=list)

    # Ids too: they are stored in a jsonb column, which refuses a NUL character.
    @field_validator(
        "body", "profile_name", "address", "label", "button_text", "list_title",
        "button_payload", "list_id", "wa_id", "message_type", "replied_to_sid",
    )  # fmt: skip
    @classmethod
    def _sanitise(cls, value: str) -> str:
        return clean_text(value)

    def content(self) -> InboundContent:
        return InboundContent(
            kind=self._kind(),
            text=self.body or self.button_text or self.list_title,
            media=self.media,
            location=self._location(),
            button_payload=self.button_payload,
            list_id=self.list_id,
            profile_name=self.profile_name[:120],
            replied_to_sid=self.replied_to_sid,
        )

    def _location(self) -> Location | None:
        if self.latitude is None or self.longitude is None:
            return None
        return Location(
            latitude=self.latitude, longitude=self.longitude, address=self.address, label=self.label
        )

    def _kind(self) -> InboundKind:
        if self._location() is not None:
            return "location"
        if self.list_id:
            return "list"
        if self.button_payload or self.button_text:
            return "button"
        if self.media:
            return media_kind(self.media[0].content_type)
        return "text"


def media_kind(content_type: str) -> InboundKind:
    """WhatsApp stickers arrive as image/webp; voice notes as audio/ogg."""
    major, _, minor = content_type.lower().partition("/")
    if major == "image":
        return "sticker" if minor == "webp" else "image"
    if major == "audio":
        return "voice"
    if major == "video":
        return "video"
    return "document"


class StatusForm(_Form):
    """A status callback for one of our outbound messages."""

    message_status: str = Field(alias="MessageStatus", min_length=1, max_length=32)
    error_code: int | None = Field(default=None, alias="ErrorCode")
    error_message: str = Field(default="", alias="ErrorMessage", max_length=500)

    @field_validator("error_code", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if value == "" else value


def _flat(form: Mapping[str, object]) -> dict[str, object]:
    return {key: form[key] for key in form}


def _media_items(form: Mapping[str, object], count: int) -> list[dict[str, object]]:
    return [
        {"url": form.get(f"MediaUrl{n}", ""), "content_type": form.get(f"MediaContentType{n}", "")}
        for n in range(min(count, MAX_MEDIA))
    ]


def parse_inbound(form: Mapping[str, object]) -> InboundForm:
    """Parse a QueryDict-like form into an InboundForm or raise MalformedForm."""
    data = _flat(form)
    try:
        count = int(str(data.get("NumMedia") or 0))
        return InboundForm.model_validate({**data, "media": _media_items(data, count)})
    except (ValidationError, ValueError) as exc:
        raise MalformedForm(str(exc)) from exc


def parse_status(form: Mapping[str, object]) -> StatusForm:
    try:
        return StatusForm.model_validate(_flat(form))
    except ValidationError as exc:
        raise MalformedForm(str(exc)) from exc
