"""The owner's campaign notices, worded once, in the owner's language when shown.

A notice is stored with its figures (CampaignEvent.params) as well as its English text
(what the API, admin history and logs show), so the console can say it again in the
language of whoever reads it: English or Kiswahili, from this package's own catalog
(tulia/campaigns/locale).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_noop, override

WORDING = {
    "paused": gettext_noop("Paused: %(reason)s"),
    "tier_wait": gettext_noop(
        "Today's marketing allowance for this number is used up; sending resumes from "
        "%(when)s shop time as the 24-hour window rolls on."
    ),
    "spread": gettext_noop(
        "%(queued)s customers to reach; this number's tier lets marketing reach "
        "%(per_day)s customers a day (%(reserve)s%% is kept for order updates), so the "
        "campaign goes out over about %(days)s days."
    ),
    "recovered": gettext_noop(
        "Recovered after a worker stopped mid-send: %(found)s found at Twilio (not sent "
        "again; counted as Twilio lists them), %(resent)s sent again (Twilio had none), "
        "%(lost)s lost (Twilio could not confirm; not sent again)."
    ),
    "done": gettext_noop("Finished: every recipient has been handled."),
}
# Why a campaign paused itself (the `cause` of a "paused" notice).
REASONS = {
    "owner": gettext_noop("paused by the shop"),
    "template": gettext_noop("template %(name)s is %(status)s, not approved"),
    "twilio": gettext_noop("Twilio error %(code)s: %(why)s"),
    "tired": gettext_noop(
        "WhatsApp refused %(refused)s of %(tried)s messages for its per-customer marketing "
        "limit (Twilio 63049): these customers get too much marketing; try fewer, more "
        "engaged customers or later"
    ),
}
# Twilio codes that stop the whole campaign: WhatsApp paused or disabled the template
# (quality), or the number hit its rate or messaging limit.
TWILIO_STOPS = {
    63027: gettext_noop("WhatsApp paused or disabled the template (usually its quality rating)"),
    63018: gettext_noop("WhatsApp refused for the number's rate or messaging limit"),
    63038: gettext_noop("the number reached its daily messaging limit"),
}


@dataclass(frozen=True)
class Reason:
    """Why a campaign paused itself, kept as figures so it can be said in any language."""

    cause: str  # a key of REASONS
    params: dict[str, object] = field(default_factory=dict)

    def __str__(self) -> str:
        with override("en"):
            return _reason({"cause": self.cause, **self.params})


def english(kind: str, params: Mapping[str, object]) -> str:
    """The stored text of a notice."""
    with override("en"):
        return render(kind, params)


def render(kind: str, params: Mapping[str, object]) -> str:
    """The notice in the active language. `when` is a shop-local time, stored as
    ISO text, shown with the language's own day and month names."""
    values = dict(params)
    if values.get("cause") in REASONS:
        values["reason"] = _reason(values)
    if isinstance(values.get("when"), str):
        values["when"] = date_format(datetime.fromisoformat(str(values["when"])), "D j M H:i")
    return gettext(WORDING[kind]) % values


def _reason(values: Mapping[str, object]) -> str:
    said = dict(values)
    if said["cause"] == "twilio":
        said["why"] = gettext(TWILIO_STOPS[int(str(said["code"]))])
    return gettext(REASONS[str(said["cause"])]) % said
