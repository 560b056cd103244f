"""A shop's settings in words: opening hours with day and time pickers, keywords as
lists (one per line), rules as switches, payment methods by name. No JSON to type.

The form writes the same JSON fields the platform reads (Tenant.handoff,
escalation_rules, compliance) and checks them with the same typed models
(tenants.config), so a value the bot could not use is refused here, by field.
"""

from __future__ import annotations

from datetime import time
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from tenants import config
from tenants.models import LANGUAGE_CHOICES, PAYMENT_METHOD_CHOICES, Tenant
from tulia.console.hours import OpeningWindowsField

DAY_NAMES = {
    "mon": _("Monday"), "tue": _("Tuesday"), "wed": _("Wednesday"), "thu": _("Thursday"),
    "fri": _("Friday"), "sat": _("Saturday"), "sun": _("Sunday"),
}  # fmt: skip


def _lines(value: list[str]) -> str:
    return "\n".join(value)


def _words(text: str) -> list[str]:
    return [line.strip() for line in text.replace(",", "\n").splitlines() if line.strip()]


def _list_field(label: Any, help_text: Any) -> forms.CharField:
    return forms.CharField(
        label=label,
        help_text=help_text,
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 30}),
    )


def _day_fields() -> dict[str, forms.Field]:
    fields: dict[str, forms.Field] = {}
    for code in config.WEEKDAYS:
        fields[f"{code}_open"] = forms.BooleanField(label=DAY_NAMES[code], required=False)
        # Every window of the day (split hours are several), not just the first.
        fields[f"{code}_hours"] = OpeningWindowsField(label=_("hours"), required=False)
    return fields


# Seven days of pickers, declared like any form field so admin's fieldsets can name them.
OpeningHoursFields = type("OpeningHoursFields", (forms.Form,), _day_fields())


class ShopSettingsForm(OpeningHoursFields, forms.ModelForm):  # type: ignore[valid-type, misc]
    payment_methods = forms.MultipleChoiceField(
        label=_("Payment methods customers can use"),
        choices=PAYMENT_METHOD_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    allowed_languages = forms.MultipleChoiceField(
        label=_("Languages the bot speaks"),
        choices=LANGUAGE_CHOICES,
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    # Handoff: when a person takes over.
    keyword_triggers = _list_field(
        _("Words that call a person"),
        _("One per line. A customer who writes one of these is handed to your staff."),
    )
    agent_capacity = forms.IntegerField(
        label=_("Chats one staff member handles at once"), min_value=1, max_value=100
    )
    open_ticket_after_hours = forms.BooleanField(
        label=_("Queue customers who ask for a person while you are closed"), required=False
    )
    # Escalation rules.
    on_human_request = forms.BooleanField(
        label=_("Hand over when asked for a person"), required=False
    )
    on_payment_dispute = forms.BooleanField(label=_("Hand over payment complaints"), required=False)
    on_sensitive_content = forms.BooleanField(label=_("Hand over sensitive topics"), required=False)
    sensitive_topics = _list_field(_("Sensitive topics"), _("One per line, e.g. legal, medical."))
    frustration_turns = forms.IntegerField(
        label=_("Hand over after this many frustrated messages"), min_value=1, max_value=10
    )
    max_clarification_loops = forms.IntegerField(
        label=_("Hand over after this many questions the bot could not understand"),
        min_value=1,
        max_value=10,
    )
    max_consecutive_tool_errors = forms.IntegerField(
        label=_("Hand over after this many errors in a row"), min_value=1, max_value=10
    )
    # Compliance.
    marketing_requires_opt_in = forms.BooleanField(
        label=_("Send offers only to customers who agreed"), required=False
    )
    show_privacy_notice = forms.BooleanField(
        label=_("Show the privacy notice to new customers"), required=False
    )
    opt_out_keywords = _list_field(
        _("Words that stop messages"), _("One per line, e.g. stop, acha. Always lower case.")
    )
    data_retention_days = forms.IntegerField(
        label=_("Keep chat history for (days)"), min_value=30, max_value=3650
    )

    class Meta:
        model = Tenant
        fields = (
            "name", "bot_name", "bot_intro", "tone_style", "max_chattiness_level",
            "default_language", "allowed_languages", "catalog_link_base", "payment_methods",
            "timezone",
        )  # fmt: skip
        labels = {
            "name": _("Shop name"),
            "bot_name": _("The bot's name"),
            "bot_intro": _("How the bot introduces itself"),
            "tone_style": _("The bot's tone"),
            "max_chattiness_level": _("How chatty the bot may be (0 short - 3 chatty)"),
            "default_language": _("Main language"),
            "catalog_link_base": _("Your website's product page address (optional)"),
            "timezone": _("Time zone"),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields.update(_day_fields())
        self._fill_initial(self.instance)

    def _fill_initial(self, tenant: Tenant) -> None:
        handoff, rules, compliance = (
            tenant.handoff_settings,
            tenant.escalation,
            tenant.compliance_settings,
        )
        initial: dict[str, Any] = {
            "keyword_triggers": _lines(handoff.keyword_triggers),
            "agent_capacity": handoff.agent_capacity,
            "open_ticket_after_hours": handoff.open_ticket_after_hours,
            **rules.model_dump(exclude={"sensitive_topics"}),
            "sensitive_topics": _lines(rules.sensitive_topics),
            **compliance.model_dump(exclude={"opt_out_keywords"}),
            "opt_out_keywords": _lines(compliance.opt_out_keywords),
        }
        for code in config.WEEKDAYS:
            windows = handoff.business_hours.windows(config.WEEKDAYS.index(code))
            initial[f"{code}_open"] = bool(windows)
            initial[f"{code}_hours"] = [(w.opens, w.closes) for w in windows]
        for name, value in initial.items():
            self.initial.setdefault(name, value)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        hours = {code: self._day(cleaned, code) for code in config.WEEKDAYS}
        handoff = self._typed(
            config.HandoffSettings,
            {
                "business_hours": hours,
                "keyword_triggers": _words(cleaned.get("keyword_triggers", "")),
                "agent_capacity": cleaned.get("agent_capacity") or 1,
                "open_ticket_after_hours": cleaned.get("open_ticket_after_hours", False),
            },
        )
        rules = self._typed(
            config.EscalationRules,
            {
                **{k: cleaned.get(k) for k in config.EscalationRules.model_fields},
                "sensitive_topics": _words(cleaned.get("sensitive_topics", "")),
            },
        )
        compliance = self._typed(
            config.Compliance,
            {
                **{k: cleaned.get(k) for k in config.Compliance.model_fields},
                "opt_out_keywords": _words(cleaned.get("opt_out_keywords", "")),
            },
        )
        if not self.errors:
            self.instance.handoff = handoff
            self.instance.escalation_rules = rules
            self.instance.compliance = compliance
        return cleaned

    def _day(self, cleaned: dict[str, Any], code: str) -> list[dict[str, time]]:
        if not cleaned.get(f"{code}_open"):
            return []
        windows = cleaned.get(f"{code}_hours")
        if windows is None:
            return []  # the field's own error is already on the page
        if not windows:
            self.add_error(
                f"{code}_hours", _("Give the opening and closing time, or untick the day.")
            )
        return [{"opens": opens, "closes": closes} for opens, closes in windows]

    def _typed(self, schema: type[BaseModel], values: dict[str, Any]) -> dict[str, Any]:
        try:
            return schema.model_validate(values).model_dump(mode="json")
        except PydanticValidationError as exc:
            for error in exc.errors():
                name = str(error["loc"][0]) if error["loc"] else None
                field = name if name in self.fields else None
                self.add_error(field, str(error["msg"]))
            return {}


def settings_fieldsets() -> tuple[tuple[Any, dict[str, Any]], ...]:
    days = tuple((f"{c}_open", f"{c}_hours") for c in config.WEEKDAYS)
    return (
        (_("Shop"), {"fields": ("name", "timezone", "payment_methods", "catalog_link_base")}),
        (_("Opening hours (tick the days you are open)"), {"fields": days}),
        (_("The bot"), {"fields": (
            "bot_name", "bot_intro", "tone_style", "max_chattiness_level",
            "default_language", "allowed_languages",
        )}),
        (_("When a person takes over"), {"fields": (
            "keyword_triggers", "agent_capacity", "open_ticket_after_hours",
            "on_human_request", "on_payment_dispute", "on_sensitive_content",
            "sensitive_topics", "frustration_turns", "max_clarification_loops",
            "max_consecutive_tool_errors",
        )}),
        (_("Customers' privacy and consent"), {"fields": (
            "marketing_requires_opt_in", "show_privacy_notice", "opt_out_keywords",
            "data_retention_days",
        )}),
    )  # fmt: skip
