"""Frequency caps: how many marketing messages a recipient may receive in a period.

A cap is ``"N/PERIOD"`` (``"2/7D"``: at most two marketing messages in seven days), read by
:func:`frequency_cap` or refused naming the field: ``N`` a whole number, at least 1;
``PERIOD`` a positive duration as :func:`smskit.rules.orders.window_of` reads one (``"7D"``,
``"36h"``, ``"2W"``).

The rule (:func:`capped`, :func:`frequency_capped`): never more than ``N`` marketing messages
in any window of ``PERIOD``. A recipient is capped when the account's messages to its number
already fill one window holding the send instant: ``N`` or more with ``s <= sent_at <= s +
PERIOD`` for some ``s`` from ``when - PERIOD`` to ``when`` (a campaign scheduled later in the
period, or at the same instant, reaches the phone in such a window, so it counts; the
campaign itself is never its own history). Only marketing
campaigns are capped and only marketing sends count (what is marketing is
:func:`smskit.rules.content.is_marketing`'s). Numbers are compared in E.164 form, as
integers (:func:`number_keys`): a number that is not E.164 (missing, unread) is never capped
and never counted.

Everything is column-wise (numpy sort, ``searchsorted``, ``unique``): no Python per row, so
a million recipients against ten million past messages stay a fraction of a preflight.
:func:`received` counts, for many (number, instant) pairs at once, the messages in the
period before each: the fatigue figures use it.

Pure: arrays in, arrays out; no I/O (the history comes from the account's journals, read by
:mod:`smskit.campaigns.analysis.sends`). May import ``smskit.errors`` and the rule book.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.ranges import exact_integer
from smskit.rules.text import check_str

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ACCOUNT_DEFAULT",
    "ENV_FREQUENCY_CAP",
    "FREQUENCY_CAPPED",
    "RULE_CAP",
    "FrequencyCap",
    "SentHistory",
    "capped",
    "frequency_cap",
    "frequency_cap_setting",
    "frequency_capped",
    "instants_ns",
    "number_keys",
    "reached",
    "received",
]

FREQUENCY_CAPPED: Final = "frequency_capped"  # the issue: excluded, at the cap already
ENV_FREQUENCY_CAP: Final = "SMSKIT_FREQUENCY_CAP"  # the account's default cap
RULE_CAP: Final = (
    "must read 'N/PERIOD': N marketing messages at most (a whole number, at least 1) in "
    "PERIOD, a positive duration such as '7D', '36h' or '2W' (e.g. '2/7D')"
)
_CAP_RE: Final = re.compile(r"\s*([0-9]+)\s*/\s*([0-9.]*\s*[A-Za-z]+)\s*")
_NO_KEY: Final = -1


class _AccountDefault:
    """The value of ``frequency_cap=`` when none is given: the account's default
    (``SMSKIT_FREQUENCY_CAP``), applied to marketing campaigns only. One instance: a copy
    or a pickle of it is :data:`ACCOUNT_DEFAULT` itself (``__reduce__``)."""

    def __repr__(self) -> str:
        return "ACCOUNT_DEFAULT"

    def __reduce__(self) -> str:
        return "ACCOUNT_DEFAULT"


ACCOUNT_DEFAULT: Final = _AccountDefault()


@dataclass(frozen=True)
class FrequencyCap:
    """At most ``count`` marketing messages in ``period`` (a positive ``timedelta``);
    ``str(cap)`` is its text (``"2/7D"``)."""

    count: int
    period: timedelta
    text: str = ""

    def __post_init__(self) -> None:
        count = exact_integer(self.count)
        if count is None or count < 1:
            raise ValidationError("frequency_cap", RULE_CAP, value=self.count)
        object.__setattr__(self, "count", count)
        if not isinstance(self.period, timedelta) or self.period <= timedelta(0):
            raise ValidationError("frequency_cap", RULE_CAP, value=self.period)
        if isinstance(self.text, str) and not self.text:
            object.__setattr__(self, "text", f"{self.count}/{_period_text(self.period)}")
        check_str(self.text, "frequency_cap.text")

    def __str__(self) -> str:
        return self.text

    @property
    def period_ns(self) -> int:
        """The period in nanoseconds."""
        return int(self.period // timedelta(microseconds=1)) * 1000


def _period_text(period: timedelta) -> str:
    if period % timedelta(days=1) == timedelta(0):
        return f"{period.days}D"
    if period % timedelta(hours=1) == timedelta(0):
        return f"{int(period.total_seconds()) // 3600}h"
    return f"{int(period.total_seconds())}s"


@dataclass(frozen=True, eq=False)
class SentHistory:
    """What a cap is checked against: the account's marketing messages, each one's number
    (an int64 key, :func:`number_keys`) and instant (int64 ns since the epoch, UTC);
    ``unread``: why no history was read (said as a warning, nothing capped); ``known``: the
    keys already at the cap, when the caller computed them once (each Dask partition gets
    them so)."""

    numbers: np.ndarray | None = None
    at: np.ndarray | None = None
    unread: str | None = None
    known: np.ndarray | None = None

    def reached(self, cap: FrequencyCap | None, when: datetime) -> np.ndarray:
        """The numbers (sorted keys) at ``cap`` already at ``when`` (none without a cap)."""
        import numpy as np

        if cap is not None and self.known is not None:
            return self.known
        if cap is None or self.numbers is None or self.at is None:
            return np.empty(0, dtype="int64")
        return reached(self.numbers, self.at, cap, when)


def frequency_cap(value: Any, field: str = "frequency_cap") -> FrequencyCap | None:
    """``value`` as a cap: a :class:`FrequencyCap`, a text ``"N/PERIOD"``, or None (no
    cap); anything else (``"0/7D"``, ``"2/-1D"``, ``"x"``) refused naming ``field``."""
    if value is None or isinstance(value, FrequencyCap):
        return value
    if not isinstance(value, str):
        raise ValidationError(field, RULE_CAP, value=value)
    from smskit.rules.orders import window_of

    found = _CAP_RE.fullmatch(value)
    if found is None or int(found.group(1)) < 1:
        raise ValidationError(field, RULE_CAP, value=value)
    try:
        period = window_of(found.group(2), field)
    except ValidationError:
        raise ValidationError(field, RULE_CAP, value=value) from None
    return FrequencyCap(int(found.group(1)), period.to_pytimedelta(), value.strip())


def frequency_cap_setting(environ: Any = None) -> FrequencyCap | None:
    """The account's default cap: ``$SMSKIT_FREQUENCY_CAP`` (unset or empty: none); a value
    that does not read is refused naming the variable. ``environ``: a mapping (default: the
    process's environment, read by the caller: this module reads none)."""
    value = (environ or {}).get(ENV_FREQUENCY_CAP) or None
    try:
        return frequency_cap(value, ENV_FREQUENCY_CAP)
    except ValidationError:  # said with what a shell can set instead
        rule = f"{RULE_CAP}; set it empty, or unset it, for no default cap"
        raise ValidationError(ENV_FREQUENCY_CAP, rule, value=value) from None


def number_keys(numbers: Any) -> np.ndarray:
    """Each number of ``numbers`` (E.164 texts: a Series, an array, a list) as an int64 key
    (its digits), -1 where it is missing or not E.164: how numbers are compared here."""
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(numbers, np.ndarray) and numbers.dtype.kind in "iu":
        return numbers.astype("int64", copy=False)
    if not isinstance(numbers, pd.Series):
        numbers = pd.Series(numbers, dtype=object, copy=False)
    if len(numbers) == 0:
        return np.empty(0, dtype="int64")
    try:  # pandas' Arrow strings go as they are; missing values (None, NaN, NA) as nulls
        texts = pa.array(numbers, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        texts = pa.array([n if isinstance(n, str) else None for n in numbers], pa.string())
    if not pa.types.is_string(texts.type) and not pa.types.is_large_string(texts.type):
        texts = pa.array([n if isinstance(n, str) else None for n in numbers], pa.string())
    valid = pc.fill_null(pc.match_substring_regex(texts, r"^\+[1-9][0-9]{6,14}$"), False)
    digits = pc.if_else(valid, pc.utf8_slice_codeunits(texts, 1), "-1")
    return np.asarray(pc.cast(digits, pa.int64()).to_numpy(zero_copy_only=False), dtype="int64")


def instants_ns(instants: Any) -> np.ndarray:
    """Aware instants (a datetime, a Series or an array of them, or int64 nanoseconds since
    the epoch) as int64 nanoseconds since the epoch (UTC); a naive one is refused."""
    import numpy as np
    import pandas as pd

    if isinstance(instants, datetime):
        if instants.utcoffset() is None:
            raise ValidationError("when", "needs a timezone (an aware datetime)", value=instants)
        return np.asarray([pd.Timestamp(instants).value], dtype="int64")
    if isinstance(instants, np.ndarray) and instants.dtype.kind in "iu":
        return instants.astype("int64", copy=False)
    series = pd.Series(instants, copy=False)
    if len(series) == 0:
        return np.empty(0, dtype="int64")
    if not isinstance(series.dtype, pd.DatetimeTZDtype):
        raise ValidationError("sent_at", "must be timezone-aware instants", value=str(series.dtype))
    utc = series.dt.tz_convert("UTC").dt.tz_localize(None)
    return utc.to_numpy(dtype="datetime64[ns]").view("int64")


def reached(history_numbers: Any, history_at: Any, cap: FrequencyCap, when: datetime) -> np.ndarray:
    """The numbers (sorted int64 keys) the history already sent ``cap.count`` or more
    messages in one window of ``cap.period`` holding ``when`` (``s <= sent_at <= s + period``
    for an ``s`` from ``when - period`` to ``when``): a message scheduled after ``when`` counts.
    ``history_numbers``: E.164 texts or keys; ``history_at``: aware instants or int64 ns."""
    import numpy as np

    keys = number_keys(history_numbers)
    at = instants_ns(history_at)
    if len(keys) != len(at):
        raise ValidationError("history", "needs as many instants as numbers", value=len(at))
    end, span = int(instants_ns(when)[0]), cap.period_ns
    inside = (at >= end - span) & (at <= end) & (keys != _NO_KEY)
    counted, counts = np.unique(keys[inside], return_counts=True)
    found = counted[counts >= cap.count]
    later = (at > end) & (at <= end + span) & (keys != _NO_KEY)
    if not later.any():  # no window holding `when` holds more than the one ending there
        return found
    # The numbers with a later message: their fullest window ends at `when` or at one of
    # their later messages (slid back until its end meets one, it loses none); each end's
    # count by searchsorted on (number, time rank).
    near = np.flatnonzero(inside | later)
    near = near[capped(keys[near], np.unique(keys[later]))]
    numbers, codes = np.unique(keys[near], return_inverse=True)
    codes, at = codes.reshape(-1).astype("int64"), at[near]
    ends = np.concatenate([np.full(len(numbers), end), at[at > end]])
    owners = np.concatenate([np.arange(len(numbers)), codes[at > end]])
    ranks = np.unique(np.concatenate([at, ends - span, ends]), return_inverse=True)[1]
    ranks, shift, n = ranks.reshape(-1).astype("int64"), len(ranks).bit_length(), len(at)
    held = np.sort((codes << shift) | ranks[:n])
    low = np.searchsorted(held, (owners << shift) | ranks[n : n + len(ends)], side="left")
    high = np.searchsorted(held, (owners << shift) | ranks[n + len(ends) :], side="right")
    fullest = np.zeros(len(numbers), dtype="int64")
    np.maximum.at(fullest, owners, high - low)
    return np.union1d(found, numbers[fullest >= cap.count])


def capped(numbers: Any, reached_keys: np.ndarray) -> np.ndarray:
    """Per number of ``numbers`` (E.164 texts or keys), whether it is among ``reached_keys``
    (sorted, as :func:`reached` gives them): a boolean array; a missing number never is."""
    import numpy as np

    keys = number_keys(numbers)
    if len(reached_keys) == 0 or len(keys) == 0:
        return np.zeros(len(keys), dtype=bool)
    at = np.searchsorted(reached_keys, keys)
    at[at == len(reached_keys)] = 0
    return (reached_keys[at] == keys) & (keys != _NO_KEY)


def frequency_capped(
    numbers: Any, history_numbers: Any, history_at: Any, cap: FrequencyCap, when: datetime
) -> np.ndarray:
    """Per recipient number (E.164), whether the history (numbers and aware instants of the
    account's marketing messages) already reached ``cap`` in the period up to ``when``."""
    return capped(numbers, reached(history_numbers, history_at, cap, when))


def received(
    numbers: Any, at: Any, history_numbers: Any, history_at: Any, period: timedelta
) -> np.ndarray:
    """For each pair (``numbers[i]``, ``at[i]``), how many messages of the history went to
    that number in the ``period`` before ``at[i]`` (``at[i] - period <= sent_at < at[i]``):
    an int64 array (0 for a number that is not E.164). Column-wise: one sort of the history
    by number and time, two ``searchsorted`` per pair."""
    import numpy as np

    keys, instants = number_keys(numbers), instants_ns(at)
    past_keys, past_at = number_keys(history_numbers), instants_ns(history_at)
    if len(keys) != len(instants) or len(past_keys) != len(past_at):
        raise ValidationError("history", "needs as many instants as numbers")
    span = int(period // timedelta(microseconds=1)) * 1000
    counts = np.zeros(len(keys), dtype="int64")
    if len(keys) == 0 or len(past_keys) == 0:
        return counts
    # Numbers as dense codes and instants as dense ranks: (code, rank) sorts as one int64.
    codes = np.unique(np.concatenate([past_keys, keys]), return_inverse=True)[1]
    codes = codes.reshape(-1).astype("int64")
    past_codes, codes = codes[: len(past_keys)], codes[len(past_keys) :]
    times = np.concatenate([past_at, instants - span, instants])
    ranks = np.unique(times, return_inverse=True)[1].reshape(-1).astype("int64")
    shift = len(times).bit_length()
    n, m = len(past_keys), len(keys)
    past = np.sort((past_codes << shift) | ranks[:n])
    low = np.searchsorted(past, (codes << shift) | ranks[n : n + m], side="left")
    high = np.searchsorted(past, (codes << shift) | ranks[n + m :], side="left")
    counts = high - low
    counts[keys == _NO_KEY] = 0
    return counts.astype("int64")
