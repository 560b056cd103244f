"""The owner's campaign notices, worded once, in the owner's language when shown.

A notice is stored with its figures (CampaignEvent.params) as well as its English text
(what the API, admin history and logs show), so the console can say it again in the
language of whoever reads it: English or Kiswahili, from this package's own catalog
(tulia/campaigns/locale).
"""

from __future__ import annotations

from collections.abc import Mapping
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


def english(kind: str, params: Mapping[str, object]) -> str:
    """The stored text of a notice."""
    with override("en"):
        return render(kind, params)


def render(kind: str, params: Mapping[str, object]) -> str:
    """The notice in the active language. `when` is a shop-local time, stored as
    ISO text, shown with the language's own day and month names."""
    values = dict(params)
    if isinstance(values.get("when"), str):
        values["when"] = date_format(datetime.fromisoformat(str(values["when"])), "D j M H:i")
    return gettext(WORDING[kind]) % values
