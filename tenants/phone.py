"""Phone numbers normalised to E.164 with Google's libphonenumber (`phonenumbers`).

Kenyan customers write 0712 345 678, 0110 123 456, 254712345678 or +254 712 345678;
Twilio sends `whatsapp:+254712345678`. All of them become `+254712345678`.
"""

from __future__ import annotations

import phonenumbers

DEFAULT_REGION = "KE"
WHATSAPP_PREFIX = "whatsapp:"
_MAX_RAW_LENGTH = 40


class InvalidPhoneNumber(ValueError):
    """The text is not a valid, dialable phone number."""


def normalize_phone(raw: str, region: str = DEFAULT_REGION) -> str:
    """Return the E.164 form of `raw`, or raise InvalidPhoneNumber with the reason."""
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidPhoneNumber("phone number is empty")
    text = raw.strip().removeprefix(WHATSAPP_PREFIX)
    if len(text) > _MAX_RAW_LENGTH:
        raise InvalidPhoneNumber("phone number is too long")
    digits = "".join(ch for ch in text if ch.isdigit())
    # "2547…" without a plus is how M-Pesa and many users write Kenyan numbers.
    if not text.startswith("+") and digits.startswith("254") and len(digits) == 12:
        text = "+" + digits
    try:
        parsed = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException as exc:
        raise InvalidPhoneNumber(f"not a phone number: {raw!r}") from exc
    if not phonenumbers.is_valid_number(parsed):
        raise InvalidPhoneNumber(f"not a valid phone number: {raw!r}")
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def whatsapp_address(e164: str) -> str:
    return f"{WHATSAPP_PREFIX}{e164}"


def mpesa_msisdn(e164: str) -> str:
    """Daraja wants 2547XXXXXXXX: the E.164 digits without the plus."""
    return e164.removeprefix("+")
