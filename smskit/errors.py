"""Every error smskit raises, as one tree rooted at :class:`SmskitError`::

  SmskitError
  ├── ConfigurationError            credentials / base URL / settings are unusable
  │   ├── NotStartedError (RuntimeError)  a local server (sandbox, inbox) used before start()
  │   ├── SandboxEndedError         a journal's embedded sandbox has ended: nothing to resume
  │   └── MissingExtraError (ImportError)  an optional part is used without its extra installed
  ├── CampaignBusy                  another runner holds the campaign journal's lease (``.owner``)
  ├── RepeatedSend                  the same send made less than a campaign's repeat_window ago
  ├── ValidationError (ValueError)  bad input caught before any request: names field, position, rule
  ├── ResponseShapeError (ValueError)  an answer does not have the shape the spec describes
  ├── TransportError                the request never got an HTTP answer (wraps httpx's error)
  │   └── TimeoutError              ... because a timeout expired
  └── APIError                      the gateway answered with an error status
      ├── AuthenticationError       401/403: missing or wrong api-login / api-key
      ├── StopMentionMissingError   400 code 121: marketing text without a STOP mention
      ├── InsufficientCreditError   400 code 122: the balance cannot pay for the request
      ├── PayloadValidationError    400 code 400: ``.errors`` holds ``{field: {code, message}}``
      │   ├── DuplicateRequestError  the ``request_id`` was already used in the last 24 hours
      │   └── NoRecipientError       no recipient was left to send to: nothing was sent
      ├── NotFoundError             404: unknown path or resource
      ├── RateLimitError            429: ``.retry_after`` seconds, from the Retry-After header
      └── ServerError               5xx

The API key never leaves the client: ``.request`` is a copy of the request (method, URL,
body) whose credential headers (``api-key``, ``authorization``) read ``********``, and
``.response`` a detached copy of the answer bound to it; no object reachable from an error
holds the key (docs/reliability.md).

An error's advice is data: :func:`advised` attaches the fact and the remedies, each worded
for its edge (Python names a call, the ``smskit`` command its options and variables).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

import httpx

__all__ = [
    "APIError",
    "AuthenticationError",
    "CampaignBusy",
    "ConfigurationError",
    "DuplicateRequestError",
    "InsufficientCreditError",
    "MissingExtraError",
    "NoRecipientError",
    "NotFoundError",
    "NotStartedError",
    "PayloadValidationError",
    "RateLimitError",
    "RepeatedSend",
    "ResponseShapeError",
    "SandboxEndedError",
    "ServerError",
    "SmskitError",
    "StopMentionMissingError",
    "TimeoutError",
    "TransportError",
    "ValidationError",
    "advised",
]

# Gateway error codes (the spec's, plus the sandbox's documented choices for "not shown").
CODE_STOP_MISSING = 121
CODE_INSUFFICIENT_CREDIT = 122
CODE_PAYLOAD_VALIDATION = 400


class SmskitError(Exception):
    """Root of every smskit error: ``except smskit.SmskitError`` catches them all.

    ``fact`` (what went wrong, without the advice; None: the message is all of it) and
    ``remedy`` (the Python arguments the message's advice names, e.g. ``("allow_insecure",)``)
    are set by :func:`advised`: an edge that is not Python (the ``smskit`` command) words the
    advice in its own terms (an option, an environment variable).
    """

    fact: str | None = None
    remedy: tuple[str, ...] = ()


_E = TypeVar("_E", bound=SmskitError)


def advised(error: _E, fact: str, *remedy: str) -> _E:
    """``error``, knowing its ``fact`` apart from its advice and the arguments the advice
    names (``remedy``)."""
    error.fact = fact
    error.remedy = remedy
    return error


class ConfigurationError(SmskitError):
    """Credentials, base URL or settings cannot be used as given."""


class NotStartedError(ConfigurationError, RuntimeError):
    """A local server (the sandbox, an inbox) was asked its URL before ``start()``: it
    has no address yet. Start it, or use it in a ``with`` block."""


class SandboxEndedError(ConfigurationError):
    """A journal's campaign was sent to an embedded sandbox that has ended (its process
    exited, or it was stopped): that gateway and its sends are gone, so nothing of the
    campaign can be resumed. The journal is finished history (``CampaignResult.load``
    reads it); sending the campaign again starts a new one. ``.journal``, ``.url``;
    ``again`` is what sends it again, when that is not sending the campaign again (an
    experiment's arm: the experiment, made again under another name)."""

    def __init__(self, journal: object, url: str, *, again: str | None = None) -> None:
        self.journal = str(journal)
        self.url = url
        again = again or (
            "smskit.CampaignResult.load(journal) reads what it did; send the campaign again "
            "to start a new one"
        )
        super().__init__(
            f"journal {self.journal!r} was sent to an embedded sandbox ({url}) that has ended "
            f"(it lives as long as its process): nothing of it can be resumed. {again}"
        )

    def of_experiment(self, name: str) -> SandboxEndedError:
        """The same refusal for an arm of experiment ``name``: its record and journals are
        its history, and only another name sends its texts again (the same name adopts
        them)."""
        again = (
            f"Experiment {name!r} is finished history: smskit.Experiment.load({name!r})"
            ".results() reads what it did; to send it again, make the Experiment again with "
            "another name= (the same name adopts this record and its journals)"
        )
        return SandboxEndedError(self.journal, self.url, again=again)


class MissingExtraError(ConfigurationError, ImportError):
    """An optional part of smskit was used without the packages of its extra.

    ``smskit.plots`` and the widgets need ``pip install 'smskit[notebook]'`` (plotly,
    ipywidgets), ``smskit.dask`` the ``dask`` extra, ``Experiment.compare()`` the ``stats``
    extra (statsmodels, SciPy); the message names the extra and the missing package
    (``.extra``, ``.package``; ``.feature`` is what was used).
    """

    def __init__(self, feature: str, package: str, extra: str) -> None:
        self.feature = feature
        self.package = package
        self.extra = extra
        super().__init__(
            f"{feature} needs {package}, which is not installed: pip install 'smskit[{extra}]'"
        )
        self.name = package


class RepeatedSend(SmskitError):
    """The same send (name as given, text, sender, options, region, recipients, to the same
    gateway) was made less than the campaign's ``repeat_window`` ago, or is recorded after
    ``.now`` (the clock was set back since: how long ago it was made cannot be told): nothing
    was sent. ``.at``, ``.name``, ``.journal`` and ``.complete`` describe the earlier send;
    ``send(again=True)`` sends it again, as a new campaign (an unfinished one is finished
    with ``Campaign.resume(.journal)``)."""

    def __init__(
        self, at: datetime, name: str, journal: str, complete: bool, *, now: datetime | None = None
    ) -> None:
        self.at, self.name, self.journal, self.complete = at, name, journal, complete
        self.now = now
        made = f"the same send was made at {at.isoformat(timespec='seconds')}"
        if now is not None and at > now:
            made = (
                f"the same send is recorded at {at.isoformat(timespec='seconds')}, after now "
                f"({now.isoformat(timespec='seconds')}): the clock was set back since, or the "
                "campaign's clock says an earlier time, so it may have been made moments ago"
            )
        made = f"{made} (campaign {name}, journal {journal})"
        if complete:
            super().__init__(f"{made}: nothing sent; send(again=True) sends it again")
        else:
            super().__init__(
                f"{made} and is not finished: nothing sent; resuming that journal finishes it "
                "(send(again=True) would send every recipient again, as a new campaign)"
            )


class CampaignBusy(SmskitError):
    """Another runner sends this campaign: its journal's lease is held by ``.owner``.

    ``.owner`` holds ``host``, ``pid`` and ``since`` (a Unix time) of the
    holder; ``.journal`` is the journal's path.
    """

    def __init__(self, journal: str, owner: Mapping[str, Any], *, waited: float = 0.0) -> None:
        self.journal = journal
        self.owner = dict(owner)
        self.waited = waited
        who = f"pid {self.owner.get('pid')} on {self.owner.get('host')!r}"
        after = f" (waited {waited:g} s)" if waited else ""
        super().__init__(
            f"campaign journal {journal!r} is being sent by another runner, {who}{after}: "
            "wait for it to finish (wait=seconds), or resume once it has stopped"
        )


class ValidationError(SmskitError, ValueError):
    """Input rejected before any request: says which field, which position and which rule.

    ``line`` is set when the input is a file refused at a line (counted from 1).
    """

    def __init__(
        self,
        field: str,
        rule: str,
        *,
        position: int | str | None = None,
        value: Any = None,
        line: int | None = None,
    ) -> None:
        self.field = field
        self.rule = rule
        self.position = position
        self.value = value
        self.line = line
        where = field if position is None else _locate(field, position)
        shown = f" (got {_short(value)})" if value is not None else ""
        super().__init__(f"{where}: {rule}{shown}")

    def at(self, position: int | str) -> ValidationError:
        """The same refusal naming ``position`` instead (its row in a larger input: a Dask
        partition's in the whole frame, an arm's in the experiment's), advice kept."""
        moved = ValidationError(
            self.field, self.rule, position=position, value=self.value, line=self.line
        )
        moved.fact, moved.remedy = self.fact, self.remedy
        return moved


class ResponseShapeError(SmskitError, ValueError):
    """A response body does not have the shape the spec describes (the client reports it as
    an :class:`APIError` carrying the answer)."""


class TransportError(SmskitError):
    """No HTTP answer: connection refused or dropped, DNS, TLS, ... (wraps the httpx error)."""

    def __init__(self, message: str, *, request: httpx.Request | None = None) -> None:
        super().__init__(message)
        self.request = request


class TimeoutError(TransportError):  # shadows the builtin on purpose, like httpx.TimeoutException
    """A connect, read, write or pool timeout expired."""


class APIError(SmskitError):
    """The gateway answered with an error status; carries its ``code``, ``message``, ``errors``."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        code: int | None = None,
        errors: Mapping[str, Any] | None = None,
        request: httpx.Request | None = None,
        response: httpx.Response | None = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.message = message
        self.errors = dict(errors or {})
        self.request = request
        self.response = response
        text = f"HTTP {status_code}"
        if code is not None:
            text += f", code {code}"
        text += f": {message}"
        if self.errors:
            details = "; ".join(
                f"{field}: {_field_message(detail)}" for field, detail in self.errors.items()
            )
            text += f" ({details})"
        super().__init__(text)


class AuthenticationError(APIError):
    """Missing or wrong credentials (HTTP 401 or 403)."""


class StopMentionMissingError(APIError):
    """A marketing (``wholesale``) text was refused because it lacks a STOP mention (code 121)."""


class InsufficientCreditError(APIError):
    """The account balance cannot pay for the request (code 122)."""


class PayloadValidationError(APIError):
    """The gateway rejected the payload; ``.errors`` maps each faulty field to code and message."""


class DuplicateRequestError(PayloadValidationError):
    """The ``request_id`` was already used within 24 hours: this request sent nothing, an
    earlier one with this id was accepted.

    Recognised by the field it names (``errors.request_id``, whatever its code) or by the
    vendor's older code 120.
    """


class NoRecipientError(PayloadValidationError):
    """No recipient of a send was left once the gateway ignored those it cannot use (and
    removed blacklisted ones, when asked): nothing was sent.

    The gateway's validation error on ``recipients`` (code 410, "must not be blank"); also
    raised by the client when a gateway accepts a send but says it kept 0 of its recipients
    (``.response`` then holds that answer: ticket, cost).
    """


class NotFoundError(APIError):
    """Unknown path or resource (HTTP 404)."""


class RateLimitError(APIError):
    """Too many requests (HTTP 429); ``.retry_after`` is the wait the gateway asked for."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        self.retry_after = retry_after
        super().__init__(message, **kwargs)


class ServerError(APIError):
    """The gateway failed (HTTP 5xx); safe to retry for idempotent or request_id-keyed calls."""


F = TypeVar("F", bound=Callable[..., Any])

# What a reader raises when a value of the wrong shape reaches code several levels down.
RAW_INPUT_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError, RecursionError)


def guard_input(field: str, rule: str) -> Callable[[F], F]:
    """Decorator: a raw failure of the function becomes a ValidationError naming ``field``.

    For readers of nested data (the gateway's answers, given back by users) whose every shape
    is not checked up front; the raw exception stays chained as the cause.
    """

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except SmskitError:
                raise
            except RAW_INPUT_ERRORS as exc:
                raise ValidationError(field, f"{rule} ({type(exc).__name__})") from exc

        return checked  # type: ignore[return-value]

    return wrap


def _locate(field: str, position: int | str) -> str:
    # "recipients.phone_number" at 3 reads "recipients[3].phone_number", as the gateway says it.
    head, dot, tail = field.partition(".")
    return f"{head}[{position}]{dot}{tail}"


def _field_message(detail: Any) -> str:
    if isinstance(detail, Mapping):
        code = detail.get("code")
        message = detail.get("message", "")
        return f"{message} (code {code})" if code is not None else str(message)
    return str(detail)


def _short(value: Any, limit: int = 60) -> str:
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        value = value.item()  # the Python value a numpy scalar holds: 612345678, not np.int64(..)
    try:
        text = repr(value)
    except Exception:  # a value nested too deep, or whose __repr__ fails, is shown by its type
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
