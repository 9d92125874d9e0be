"""The recipients' half of a preflight: everything that depends on the recipients only.

Numbers normalised (:mod:`smskit.rules.phones`), their region and line type, the number
issues (invalid, cannot receive SMS), which numbers repeat, and each dynamic field as a code
per recipient into its distinct values. An :class:`Audience` is computed once per recipient
set; the text's half (:mod:`smskit.campaigns.planning.preflight`) runs per text and options, over
the distinct field combinations the text uses, and maps back to recipients with these codes.

Everything is columnar (integer codes, categoricals); a distinct value's text is stored once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.caps import capped, number_keys
from smskit.rules.fields import field_text
from smskit.rules.findings import ISSUES
from smskit.rules.optouts import opted_out
from smskit.rules.recipients import REGION_COLUMN, Recipients, number_codes

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from smskit.rules.phones import Codes

__all__ = [
    "DOUBTFUL_LINE_TYPES",
    "NO_SMS_LINE_TYPES",
    "NUMBER_BLOCK_MIN_ROWS",
    "NUMBER_BLOCK_ROWS",
    "Audience",
    "FieldValues",
]

# Numbers checked at a time: phones.normalize's passing memory grows with its input (a few
# hundred bytes a value for its matrices); 100,000 is its fastest block on 1,000,000 rows
# (0.96 s, against 1.12 s by 20,000 and 1.33 s whole) and the smallest growth there (157 MB,
# against 165 MB by 50,000 and 173-180 MB by 25,000). A smaller input is checked in quarters
# of at least NUMBER_BLOCK_MIN_ROWS: 100,000 rows at once peak 47 MB over the process, in
# blocks of 25,000 23 MB, in the same time (docs/benchmarks.md, issue #34 item 6).
NUMBER_BLOCK_ROWS: Final = 100_000
NUMBER_BLOCK_MIN_ROWS: Final = 25_000

# Line types that cannot receive an SMS: fixed lines, special-rate and service numbers,
# pagers, voicemail, and the ranges reserved for fiction (they belong to nobody).
NO_SMS_LINE_TYPES: Final = frozenset(
    {
        "landline",
        "toll_free",
        "premium",
        "shared_cost",
        "pager",
        "universal_access_number",
        "voicemail_only",
        "stage_and_screen",
    }
)
# Some receive SMS and some do not: sent, with a warning.
DOUBTFUL_LINE_TYPES: Final = frozenset({"voip", "personal_number"})
# The doubtful line kind of a row is 1 + its type's place here (0: not doubtful).
DOUBTFUL_ORDER: Final = tuple(sorted(DOUBTFUL_LINE_TYPES))


@dataclass(frozen=True)
class _Refused:
    """A field value that is not a scalar, by its type's name (one per type, as a key)."""

    type_name: str


@dataclass(frozen=True)
class FieldValues:
    """One dynamic field over the recipients: ``codes`` (one per recipient) index its
    distinct values; ``texts`` is what each renders as ("" when missing or refused),
    ``refused`` the type's name of a value that is not a scalar (None for the others)."""

    name: str
    codes: np.ndarray
    texts: tuple[str, ...]
    refused: tuple[str | None, ...]

    # Made once per field, not per text: a keystroke reads them (read-only arrays).
    @cached_property
    def refused_mask(self) -> np.ndarray:
        """Per distinct value: not a scalar (refused)."""
        return _frozen([r is not None for r in self.refused], "bool")

    @cached_property
    def missing(self) -> np.ndarray:
        """Per distinct value: blank, though a scalar (it renders empty)."""
        return _frozen(
            [r is None and not t.strip() for t, r in zip(self.texts, self.refused, strict=True)],
            "bool",
        )

    @cached_property
    def too_long(self) -> np.ndarray:
        """Per distinct value: over the spec's 50 characters."""
        return _frozen([len(t) > _spec.FIELD_MAX for t in self.texts], "bool")

    @cached_property
    def text_array(self) -> np.ndarray:
        """``texts`` as an array of objects (gathered per field combination)."""
        return _frozen(list(self.texts), "object")

    @cached_property
    def refused_array(self) -> np.ndarray:
        """``refused`` as an array of objects."""
        return _frozen(list(self.refused), "object")


def _frozen(values: list[Any], dtype: str) -> np.ndarray:
    import numpy as np

    array = np.empty(len(values), dtype=dtype)
    array[:] = values
    array.setflags(write=False)
    return array


class Audience:
    """The recipients' half of a preflight, for one recipient set and default region.

    ``passes`` counts the reads of the recipients by what they were for (``"numbers"``, then
    one per dynamic field read later): the hook that shows a text change reads nothing.
    Numbers are checked ``block_rows`` at most at a time, and a smaller input in quarters
    of at least :data:`NUMBER_BLOCK_MIN_ROWS` (what its checks hold at once stays small).
    """

    def __init__(
        self,
        recipients: Recipients,
        default_region: str | None,
        *,
        fields: Sequence[str] = (),
        block_rows: int = NUMBER_BLOCK_ROWS,
    ) -> None:
        self.recipients = recipients
        self.default_region = default_region
        self.fingerprint = recipients.fingerprint()
        self.block_rows = block_rows
        self.passes: Counter[str] = Counter()
        self._fields: dict[str, FieldValues] = {}
        self._combinations: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._base_duplicates: tuple[np.ndarray, np.ndarray] | None = None
        self._listed: tuple[frozenset[str], np.ndarray] | None = None
        self._keys: np.ndarray | None = None
        self._read_numbers(tuple(dict.fromkeys(fields)))

    def fits(self, recipients: Recipients, default_region: str | None) -> bool:
        """Still the audience of ``recipients`` read in ``default_region`` (unchanged file)."""
        return (
            (recipients is self.recipients or recipients.frame is self.recipients.frame)
            and recipients.path == self.recipients.path
            and default_region == self.default_region
            and recipients.fingerprint() == self.fingerprint
        )

    def __len__(self) -> int:
        return len(self.row)

    # -- numbers -------------------------------------------------------------------------------

    def _read_numbers(self, fields: tuple[str, ...]) -> None:
        import numpy as np
        import pandas as pd

        from smskit.rules.phones import e164_texts

        self.passes["numbers"] += 1
        for name in fields:
            self.passes[name] += 1
        table = self.recipients.columns(fields)
        self.index = table.index
        self.row: np.ndarray = np.arange(len(table), dtype="int64")
        for name in fields:
            self._fields[name] = _field_values(name, table[name])
        given, regions = table["phone_number"], table[REGION_COLUMN].array
        del table  # the fields' texts are codes now: only the numbers' columns stay
        # A CSV's numbers and a `str` column (pandas' own, or Arrow data's) stay compact
        # strings: inference would give that same column. Other inputs are typed as a report
        # column would be (pandas' own inference), so no report re-infers a million values.
        self.input: Any = (
            given.array
            if self.recipients.path is not None
            or given.dtype == pd.StringDtype("pyarrow", na_value=np.nan)
            else pd.Series(given.to_numpy(dtype=object)).array
        )
        numbers = _Numbers(len(self.row))
        # A block of numbers at a time (phones.normalize's passing memory grows with its
        # input); what each block leaves is codes and integers.
        block = min(self.block_rows, max(NUMBER_BLOCK_MIN_ROWS, -(-len(self.row) // 4)))
        for start in range(0, len(self.row), block):
            end = start + block
            at = (f"{self.recipients.field}.{REGION_COLUMN}", range(start, end))  # input's rows
            codes = number_codes(
                given.array[start:end], regions[start:end], self.default_region, at
            )
            numbers.add(start, codes)
            del codes
        self.valid: np.ndarray = numbers.valid
        self.issue, self.detail_codes, self.detail_categories = numbers.issues()
        self.phone_number: Any = e164_texts(numbers.key).astype("str")
        self.region = numbers.regions()
        self.line_type = pd.Categorical.from_codes(numbers.type, dtype=_type_dtype())
        self.doubtful = np.zeros(len(self.row), dtype="int8")
        for kind, name in enumerate(DOUBTFUL_ORDER, start=1):
            self.doubtful[numbers.type == _spec.PHONE_NUMBER_TYPE.index(name)] = kind
        # Rows with a number, by number (E.164's digits as an integer) then row; a row's
        # head is the first row with its number: repeats are the rows after their head.
        key = numbers.key
        order = np.argsort(key)
        order = order[key[order] > 0]
        sorted_keys = key[order]
        starts = np.ones(len(order), dtype=bool)
        starts[1:] = sorted_keys[1:] != sorted_keys[:-1]
        # A quicksort leaves a number's rows in any order: sorted again by (the number's place,
        # row), unique pairs. Two quicksorts take 33 ms for a million numbers in random order
        # where one stable sort takes 94 ms (22 ms against 12 ms when they come sorted).
        order = order[np.argsort(np.cumsum(starts) * len(key) + order)]
        del key, sorted_keys, numbers
        self.group_order = order.astype("int32")
        self.group_head = order[np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))]
        self.group_head = self.group_head.astype("int32")
        self.regions: list[str] = [str(r) for r in self.region.categories]
        valid_codes = np.unique(self.region.codes[self.valid])
        self.valid_regions = [self.regions[c] for c in valid_codes if c >= 0]

    # -- fields --------------------------------------------------------------------------------

    def field(self, name: str) -> FieldValues:
        """A dynamic field's values (read on first use: one pass over the recipients)."""
        self.prepare((name,))
        return self._fields[name]

    def prepare(self, names: Sequence[str]) -> None:
        """Read the fields of ``names`` not read yet, in one pass over the recipients."""
        wanted = [n for n in dict.fromkeys(names) if n not in self._fields]
        if not wanted:
            return
        for name in wanted:
            self.passes[name] += 1
        table = self.recipients.columns(wanted)
        if len(table) != len(self):
            raise ValidationError(
                self.recipients.field,
                f"changed while being read: {len(table)} rows now, {len(self)} before",
            )
        for name in wanted:
            self._fields[name] = _field_values(name, table[name])

    def combinations(self, names: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The distinct combinations of the fields ``names`` among the recipients: a code per
        recipient, and per combination the code of each field's value (one column a field)."""
        import numpy as np
        import pandas as pd

        known = self._combinations.get(names)
        if known is not None:
            return known
        self.prepare(names)
        if not names:
            made = np.zeros(len(self), dtype="int32"), np.zeros((1, 0), dtype="int32")
        else:
            # Only the combinations some recipient has (a field's missing slot may be unused).
            codes, uniques = pd.factorize(self._fields[names[0]].codes)
            table = uniques.astype("int64")[:, None]
            for name in names[1:]:
                values = self._fields[name]
                width = len(values.texts)
                combined, uniques = pd.factorize(codes.astype("int64") * width + values.codes)
                table = np.column_stack([table[uniques // width], uniques % width])
                codes = combined
            codes = codes.astype("int32")
            made = codes, table.astype("int32")
        self._combinations[names] = made
        return made

    # -- duplicates ----------------------------------------------------------------------------

    def listed(self, suppressed: frozenset[str]) -> np.ndarray:
        """Per row, whether its number is on the opt-out list ``suppressed``
        (:func:`smskit.rules.optouts.opted_out`); kept while the list is the same, so the
        Composer's keystrokes do not look a million numbers up again."""
        known = self._listed
        if known is not None and (known[0] is suppressed or known[0] == suppressed):
            return known[1]
        mask = opted_out(self.phone_number, suppressed)
        self._listed = (suppressed, mask)
        return mask

    def at_cap(self, reached: np.ndarray) -> np.ndarray:
        """Per row, whether its number is among ``reached`` (the numbers already at the
        frequency cap: :func:`smskit.rules.caps.capped`); the numbers' keys are made once,
        so the Composer's keystrokes do not convert a million numbers again."""
        if self._keys is None:
            self._keys = number_keys(self.phone_number)
        return capped(self._keys, reached)

    def duplicates(self, candidates: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Rows whose number an earlier candidate row already has, and that earlier row's
        ``row`` value. ``candidates`` (a mask) are the rows without an issue so far; None
        means every row whose number has none."""
        if candidates is None:
            if self._base_duplicates is None:
                self._base_duplicates = self._repeats(self.issue == -1)
            return self._base_duplicates
        return self._repeats(candidates)

    def _repeats(self, candidates: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import numpy as np

        at = np.flatnonzero(candidates[self.group_order])
        kept = self.group_order[at]
        heads = self.group_head[at]
        starts = np.ones(len(kept), dtype=bool)
        starts[1:] = heads[1:] != heads[:-1]
        if starts.all():
            empty = np.zeros(0, dtype="int64")
            return empty, empty
        firsts = kept[np.maximum.accumulate(np.where(starts, np.arange(len(kept)), 0))]
        repeat = ~starts
        # Said in the order the numbers first appear, then by row.
        order = np.lexsort((kept[repeat], heads[repeat]))
        return kept[repeat][order].astype("int64"), self.row[firsts[repeat][order]]


class _Numbers:
    """The number checks of every row, filled block by block as compact columns."""

    def __init__(self, size: int) -> None:
        import numpy as np

        self.reason = np.zeros(size, dtype="int8")
        self.type = np.zeros(size, dtype="int8")
        self.region = np.full(size, -1, dtype="int16")
        # E.164's digits as an integer (0: no number): finding repeats is a sort of integers,
        # never a hash of a million strings.
        self.key = np.zeros(size, dtype="int64")

    def add(self, start: int, codes: Codes) -> None:
        """The checks of the rows from ``start`` on (:func:`phones.normalize_codes`)."""
        at = slice(start, start + len(codes.e164))
        self.reason[at] = codes.reason
        self.type[at] = codes.type
        self.region[at] = codes.region
        self.key[at] = codes.e164

    @property
    def valid(self) -> np.ndarray:
        return self.reason == _spec_reasons().index("ok")

    def issues(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """Each row's issue (-1: none), and the issue's detail as a code into the details: the
        reason a number is invalid, or the line type that cannot receive an SMS (said once per
        distinct value, never a string per row)."""
        import numpy as np

        valid = self.valid
        no_sms = np.isin(self.type, _no_sms_codes()) & valid
        issue = np.full(len(valid), -1, dtype="int8")
        issue[~valid] = ISSUES.index("invalid_number")
        issue[no_sms] = ISSUES.index("cannot_receive_sms")
        reasons = _spec_reasons()
        detail = np.where(~valid, self.reason, -1)
        detail = np.where(no_sms, len(reasons) + self.type, detail)
        names = [*reasons, *(f"line type {t}" for t in _spec.PHONE_NUMBER_TYPE)]
        used = np.unique(detail[detail >= 0])
        ordered = sorted(used.tolist(), key=lambda c: names[c])
        remap = np.full(len(names) + 1, -1, dtype="int32")
        remap[ordered] = np.arange(len(ordered), dtype="int32")
        return issue, remap[detail], [names[c] for c in ordered]

    def regions(self) -> Any:
        """Each row's region as a categorical of the regions some row has (sorted)."""
        import numpy as np
        import pandas as pd

        from smskit.rules.phones import REGION_NAMES

        # The regions present, counted (no hashing of a million codes); -1 stays missing.
        counts = np.bincount(self.region.astype("int64") + 1, minlength=len(REGION_NAMES) + 1)
        present = np.flatnonzero(counts[1:])
        remap = np.full(len(REGION_NAMES) + 1, -1, dtype="int16")  # the last: a missing one
        remap[present] = np.arange(len(present))
        categories = pd.Index(REGION_NAMES)[present]
        return pd.Categorical.from_codes(remap[self.region], categories=categories)


@lru_cache(maxsize=1)
def _type_dtype() -> Any:
    import pandas as pd

    return pd.CategoricalDtype(list(_spec.PHONE_NUMBER_TYPE))


@lru_cache(maxsize=1)
def _spec_reasons() -> tuple[str, ...]:
    from smskit.rules.phonecheck import REASONS

    return REASONS


@lru_cache(maxsize=1)
def _no_sms_codes() -> list[int]:
    return [_spec.PHONE_NUMBER_TYPE.index(t) for t in sorted(NO_SMS_LINE_TYPES)]


def _field_values(name: str, column: pd.Series) -> FieldValues:
    """One dynamic field over every row: a key a distinct value (its text, a
    :class:`_Refused` for a value that is not a scalar), missing values last."""
    import numpy as np
    import pandas as pd

    values: Any = column.array
    # Asked of the Series: of a NumpyExtensionArray pandas answers "unknown-array", which sent
    # every column of Python strings (and every absent field) through the loop below.
    if pd.api.types.infer_dtype(column, skipna=True) not in ("string", "empty"):
        keys: list[str | _Refused | None] = []
        for value in values:
            try:
                keys.append(field_text(value, name))
            except ValidationError:
                keys.append(_Refused(type(value).__name__))
        values = np.empty(len(keys), dtype=object)
        values[:] = keys
    codes, uniques = pd.factorize(values)
    found = [u if isinstance(u, _Refused) else str(u) for u in uniques]
    texts = ["" if isinstance(u, _Refused) else u for u in found]
    refused = [u.type_name if isinstance(u, _Refused) else None for u in found]
    missing = len(found)
    return FieldValues(
        name, np.where(codes < 0, missing, codes).astype("int32"), (*texts, ""), (*refused, None)
    )
