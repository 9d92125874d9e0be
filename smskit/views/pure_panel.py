"""What the composer's live panel shows, as a pure function of text, options and preflight.

:class:`smskit.views.composer.Composer` only sends :func:`compose_panel`'s answer to its front
end, as the JSON :func:`panel_state` makes of it: every figure and every check it shows is
computed here (the rule book's answers), testable without a browser, and the front end
(``static/composer.js``) only draws it, as text (the text is the user's, never markup).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.planning.holdout import HELD_OUT
from smskit.errors import ValidationError
from smskit.rules import text as engine
from smskit.rules.caps import FREQUENCY_CAPPED
from smskit.rules.content import has_stop_mention, is_marketing, sender_allows_spaces
from smskit.rules.fields import split_fields
from smskit.rules.findings import Finding
from smskit.rules.links import find_links, with_short_links
from smskit.rules.sender import check_sender

if TYPE_CHECKING:
    from smskit.campaigns.planning.report import PreflightOutline

__all__ = ["Check", "ComposerPanel", "compose_panel", "highlight", "panel_state"]

PREVIEW_ROWS: Final = 5


@dataclass(frozen=True, slots=True)
class Check:
    """One condition for sending: its name, whether it holds, and what to do otherwise."""

    name: str
    ok: bool
    message: str


@dataclass(frozen=True)
class ComposerPanel:
    """Everything the live panel shows for one state of the composer.

    ``stats`` is the text as typed (None when it cannot be analysed); ``sent`` the text with
    its tracked links as sent (each a short link of its real length); ``delivered`` the text
    the gateway would count after its ``auto_optimize_text`` (None when that changes nothing
    or is off). ``preview`` holds the first recipients' rows (``row``, ``phone_number``,
    ``text`` rendered, ``encoding``, ``segments``, ``issue``; None where empty) or None
    without recipients; ``worst_case`` the most segments any recipient to send gets.
    ``to_send`` and ``sms`` are None while the text cannot be sent (nobody would be sent
    anything); ``findings`` the preflight's campaign-level warnings, as data (each badge is
    named by its code).
    """

    text: str
    stats: engine.TextStats | None
    fields: tuple[str, ...]
    unknown_fields: tuple[str, ...]
    stop_required: bool
    has_stop: bool
    optimization: engine.Optimization | None
    delivered: engine.TextStats | None
    checks: tuple[Check, ...]
    preview: tuple[dict[str, Any], ...] | None = field(default=None, repr=False)
    worst_case: int | None = None
    to_send: int | None = None
    findings: tuple[Finding, ...] = ()
    recipients: int | None = None
    sms: int | None = None
    held_out: int | None = None  # of the recipients, those the holdout keeps out
    # Tracked links: the text as sent, each URL a short link of its real length (None: the
    # links are not tracked, or cannot be); the meter counts it.
    sent: engine.TextStats | None = None

    @property
    def warnings(self) -> tuple[str, ...]:
        """The preflight's warnings in words."""
        return tuple(finding.message() for finding in self.findings)

    @property
    def ok(self) -> bool:
        """Every check holds: the campaign may be sent."""
        return all(check.ok for check in self.checks)

    @property
    def failed(self) -> tuple[Check, ...]:
        """The checks that do not hold."""
        return tuple(check for check in self.checks if not check.ok)

    @property
    def can_optimize(self) -> bool:
        """ "optimise text" would change the text."""
        return self.optimization is not None and bool(self.optimization.replacements)

    @property
    def can_add_stop(self) -> bool:
        """ "add STOP mention" applies: marketing text without one."""
        return self.stop_required and not self.has_stop


def _text_check(text: str) -> Check:
    try:
        engine.validate_text(text)
    except ValidationError as exc:
        return Check("text", False, str(exc))
    return Check("text", True, f"{len(text)} of {engine.MAX_TEXT_LENGTH} characters")


def _sender_check(sender: str, options: Mapping[str, Any]) -> Check:
    spaces = sender_allows_spaces(options.get("purpose"), options.get("with_replies"))
    try:
        check_sender(sender, spaces=spaces)
    except ValidationError as exc:
        return Check("sender", False, str(exc))
    return Check("sender", True, sender)


def _stop_check(required: bool, present: bool) -> Check:
    if not required:
        return Check("stop", True, "not required for purpose='alert'")
    if present:
        return Check("stop", True, "STOP mention present")
    return Check("stop", False, "marketing (purpose='wholesale') needs a STOP mention")


def _recipient_checks(
    report: PreflightOutline | None,
    option_error: str | None,
    recipients_error: str | None,
    sendable: bool,
) -> list[Check]:
    if option_error is not None:
        return [Check("options", False, option_error)]
    if recipients_error is not None:
        return [Check("recipients", False, recipients_error)]
    if report is None:
        return [Check("recipients", False, "no recipients: pass recipients= to the composer")]
    if not report.recipients:
        return [Check("recipients", False, "no recipients: the recipients given have no row")]
    blocked = report.blocking_findings()  # the holdout holding out everyone: its own check
    if blocked:
        return [Check(f.field or "recipients", False, f.message()) for f in blocked]
    if not report.to_send:
        issues = report.issues()
        why = ", ".join(f"{issue}: {int(n)}" for issue, n in issues[issues > 0].items())
        return [
            Check(
                "recipients", False, f"none of {report.recipients} recipients can be sent ({why})"
            )
        ]
    if not sendable:  # the text check says why: nobody is sent anything yet
        return [
            Check(
                "recipients", True, f"{report.recipients} recipient(s), sent once the text can be"
            )
        ]
    held = held_out(report)
    excluded = report.recipients - report.to_send - held
    shown = f"{report.to_send} to send" + (f", {excluded} excluded" if excluded else "")
    shown += f", {held} held out (the holdout: never sent)" if held else ""
    capped = report.excluded(FREQUENCY_CAPPED) if excluded else 0
    if capped:  # the cap is the account's choice: said, with its count
        shown += f" ({capped} {FREQUENCY_CAPPED}: at the cap of marketing messages)"
    return [Check("recipients", True, shown)]


def held_out(report: PreflightOutline) -> int:
    """The recipients a preflight holds out (the campaign's holdout, issue ``held_out``)."""
    return report.excluded(HELD_OUT)


def compose_panel(
    text: str,
    *,
    sender: str,
    options: Mapping[str, Any],
    report: PreflightOutline | None = None,
    option_error: str | None = None,
    recipients_error: str | None = None,
    preview_rows: int = PREVIEW_ROWS,
    link_base: str | None = None,
) -> ComposerPanel:
    """The live panel for ``text`` sent by ``sender`` with send ``options``.

    ``report`` is the campaign's preflight outline (:meth:`smskit.Campaign.preflight_outline`,
    or a report's :meth:`~smskit.campaigns.planning.report.PreflightReport.outline`; None
    without recipients); ``option_error`` says
    why the options could not make a campaign (a bad ``send_at``, say), ``recipients_error``
    why the recipients could not be checked. ``link_base``: the links are tracked (the
    Composer's ``track_links``): the meter counts each URL as the short link sent, and a
    link that cannot be carried fails the ``links`` check.
    """
    try:
        stats: engine.TextStats | None = engine.analyze(text)
        optimization: engine.Optimization | None = engine.optimize(text)
        has_stop = has_stop_mention(text)
    except ValidationError:
        stats, optimization, has_stop = None, None, False
    known, unknown = split_fields(text)
    stop_required = is_marketing(options.get("purpose"))
    delivered = None
    if (
        optimization is not None
        and optimization.replacements
        and options.get("auto_optimize_text") is not False
    ):
        delivered = engine.analyze(optimization.text)
    text_check = _text_check(text)
    sendable = text_check.ok  # a text that cannot be sent reaches nobody
    checks = [text_check]
    if unknown:
        names = ", ".join(f"{{{n}}}" for n in unknown)
        checks.append(Check("fields", False, f"unknown dynamic field(s) {names}"))
    else:
        checks.append(Check("fields", True, ", ".join(f"{{{n}}}" for n in known) or "none used"))
    sent = None
    if link_base is not None:
        try:
            sent = engine.analyze(with_short_links(text, link_base))
        except ValidationError as exc:
            checks.append(Check("links", False, str(exc)))
        else:
            count = len({link.url for link in find_links(text)})
            checks.append(Check("links", True, f"{count} link(s) tracked, as {link_base}/..."))
    checks.append(_stop_check(stop_required, has_stop))
    checks.append(_sender_check(sender, options))
    checks += _recipient_checks(report, option_error, recipients_error, sendable)
    panel = ComposerPanel(
        text=text,
        stats=stats,
        fields=known,
        unknown_fields=unknown,
        stop_required=stop_required,
        has_stop=has_stop,
        optimization=optimization,
        delivered=delivered,
        checks=tuple(checks),
        sent=sent,
    )
    if report is None:  # no recipients: the panel's recipient figures stay unknown
        return panel
    return replace(
        panel,
        preview=report.head[:preview_rows],
        worst_case=report.worst_case,
        recipients=report.recipients,
        findings=tuple(report.findings),
        held_out=held_out(report),
        # a text that cannot be sent reaches nobody: no count to send, no SMS
        to_send=report.to_send if sendable else None,
        sms=report.segments if sendable else None,
    )


def highlight(text: str, positions: set[int]) -> list[tuple[str, bool]]:
    """``text`` in runs, each flagged when its characters are at ``positions`` (forcing UCS-2)."""
    runs: list[tuple[str, bool]] = []
    for index, char in enumerate(text):
        hot = index in positions
        if runs and runs[-1][1] == hot:
            runs[-1] = (runs[-1][0] + char, hot)
        else:
            runs.append((char, hot))
    return runs


def _figures(stats: engine.TextStats | None) -> dict[str, Any] | None:
    if stats is None:
        return None
    used = stats.per_segment - stats.remaining  # units used of the last segment
    return {
        "encoding": stats.encoding,
        "characters": stats.characters,
        "units": stats.units,
        "unit_name": "septets" if stats.encoding == engine.GSM7 else "units",
        "segments": stats.segments,
        "per_segment": stats.per_segment,
        "used": used,
        "remaining": stats.remaining,
    }


def _bubble(row: Mapping[str, Any]) -> dict[str, Any]:
    def shown(name: str) -> str:
        value = row[name]
        return "" if value is None else str(value)

    segments = row["segments"]
    return {
        "row": int(row["row"]),
        "to": shown("phone_number"),
        "text": shown("text"),
        "encoding": shown("encoding"),
        "segments": None if segments is None else int(segments),
        "issue": shown("issue"),
    }


def panel_state(panel: ComposerPanel) -> dict[str, Any]:
    """The live panel as the front end draws it: JSON values only (strings the front end
    shows as text, never as markup).

    ``runs`` is the text cut where characters force UCS-2 (``[run, forcing]`` pairs, so the
    front end marks them without counting positions itself); ``meter`` the last segment's
    units used of its capacity; ``findings`` each check and warning with its ``group``:
    ``blocks`` (a failed check: send is disabled), ``warning`` (preflight's warnings: the
    send goes on) or ``ok``; ``bubbles`` the first recipients' messages as they would
    receive them (``issue``: why one is excluded).
    """
    stats = panel.stats
    forcing = [] if stats is None else list(dict.fromkeys(c for _, c in stats.non_gsm))
    positions = set() if stats is None else {p for p, _ in stats.non_gsm}
    findings = [
        {"name": c.name, "ok": c.ok, "message": c.message, "group": "ok" if c.ok else "blocks"}
        for c in panel.checks
    ]
    # a warning is named by its finding's code (fields_missing, hours_refused ...), as a
    # check is by its name: the group's heading already says it is a warning
    findings += [
        {"name": f.code, "ok": True, "message": f.message(), "group": "warning"}
        for f in panel.findings
    ]
    delivered = panel.delivered
    preview = panel.preview
    return {
        "text": panel.text,
        "runs": [[run, hot] for run, hot in highlight(panel.text, positions)],
        "meter": _figures(stats if panel.sent is None else panel.sent),
        "forcing": [{"char": c, "code": " ".join(f"U+{ord(u):04X}" for u in c)} for c in forcing],
        "delivered": None
        if delivered is None
        else {"encoding": delivered.encoding, "segments": delivered.segments},
        "fields": [f"{{{n}}}" for n in panel.fields],
        "unknown_fields": [f"{{{n}}}" for n in panel.unknown_fields],
        "stop": {"required": panel.stop_required, "present": panel.has_stop},
        "findings": findings,
        "blocked": [f["name"] for f in findings if f["group"] == "blocks"],
        "bubbles": [] if preview is None else [_bubble(row) for row in preview],
        "recipients": panel.recipients,
        "to_send": panel.to_send,
        "held_out": panel.held_out,
        "sms": panel.sms,
        "worst_case": panel.worst_case,
        "ok": panel.ok,
    }
