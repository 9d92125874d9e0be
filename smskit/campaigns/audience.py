"""The recipients' half of a preflight: everything that depends on the recipients only.

Numbers normalised (:mod:`smskit.rules.phones`), their region and line type, the number
issues (invalid, cannot receive SMS), which numbers repeat, and each dynamic field as a code
per recipient into its distinct values. An :class:`Audience` is computed once per recipient
set; the text's half (:mod:`smskit.campaigns.preflight`) runs per text and options, over the
distinct field combinations the text uses, and maps back to recipients with these codes.

Everything is columnar (integer codes, categoricals); a distinct value's text is stored once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.fields import field_text
from smskit.rules.findings import ISSUES
from smskit.rules.recipients import BLOCK_ROWS, REGION_COLUMN, Recipients, number_checks

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["DOUBTFUL_LINE_TYPES", "NO_SMS_LINE_TYPES", "Audience", "FieldValues"]

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

    @property
    def refused_mask(self) -> np.ndarray:
        import numpy as np

        return np.array([r is not None for r in self.refused], dtype=bool)

    @property
    def missing(self) -> np.ndarray:
        """Per distinct value: blank, though a scalar (it renders empty)."""
        import numpy as np

        return np.array(
            [r is None and not t.strip() for t, r in zip(self.texts, self.refused, strict=True)],
            dtype=bool,
        )

    @property
    def too_long(self) -> np.ndarray:
        """Per distinct value: over the spec's 50 characters."""
        import numpy as np

        return np.array([len(t) > _spec.FIELD_MAX for t in self.texts], dtype=bool)


class Audience:
    """The recipients' half of a preflight, for one recipient set and default region.

    ``passes`` counts the reads of the recipients by what they were for (``"numbers"``, then
    one per dynamic field read later): the hook that shows a text change reads nothing.
    """

    def __init__(
        self,
        recipients: Recipients,
        default_region: str | None,
        *,
        fields: Sequence[str] = (),
        block_rows: int = BLOCK_ROWS,
    ) -> None:
        self.recipients = recipients
        self.default_region = default_region
        self.fingerprint = recipients.fingerprint()
        self.block_rows = block_rows
        self.passes: Counter[str] = Counter()
        self._fields: dict[str, FieldValues] = {}
        self._combinations: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
        self._base_duplicates: tuple[np.ndarray, np.ndarray] | None = None
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

        # Each block leaves compact pieces only (codes, pandas' string arrays): a million
        # rows' numbers, regions and types as Python strings would be most of the peak.
        parts: dict[str, list[Any]] = {
            k: [] for k in ("row", "input", "e164", "region", "type", "valid", "issue", "detail")
        }
        indexes: list[pd.Index] = []
        values: dict[str, list[tuple[np.ndarray, list[Any]]]] = {name: [] for name in fields}
        self.passes["numbers"] += 1
        for name in fields:
            self.passes[name] += 1
        for block in self.recipients.blocks(fields, self.block_rows):
            checks = number_checks(
                block["phone_number"].tolist(), block[REGION_COLUMN].tolist(), self.default_region
            )
            # Typed once as a report column would be (pandas' own inference, usually its
            # compact string dtype), so no report re-infers a million strings.
            parts["input"].append(pd.Series(block["phone_number"].to_numpy(dtype=object)))
            parts["e164"].append(checks["e164"].astype("str"))
            parts["region"].append(checks["region"].astype("str"))
            parts["row"].append(block["row"].to_numpy())
            parts["valid"].append(checks["valid"].to_numpy(dtype=bool))
            issue, detail = _number_issues(checks)
            parts["issue"].append(issue)
            parts["detail"].append(detail)
            parts["type"].append(pd.Categorical(checks["type"], categories=_spec.PHONE_NUMBER_TYPE))
            indexes.append(block.index)
            for name in fields:
                values[name].append(_distinct(block[name].to_numpy(dtype=object), name))
        self.index = indexes[0].append(indexes[1:]) if len(indexes) > 1 else indexes[0]
        self.row: np.ndarray = np.concatenate(parts.pop("row"))
        self.valid: np.ndarray = np.concatenate(parts.pop("valid"))
        self.issue: np.ndarray = np.concatenate(parts.pop("issue"))
        self.input: Any = pd.concat(parts.pop("input"), ignore_index=True).array
        self.phone_number: Any = pd.concat(parts.pop("e164"), ignore_index=True).array
        self.region = pd.Categorical(pd.concat(parts.pop("region"), ignore_index=True))
        self.line_type = pd.api.types.union_categoricals(parts.pop("type"))
        detail = pd.api.types.union_categoricals(parts.pop("detail"))
        self.detail_codes = detail.codes.astype("int32")
        self.detail_categories = [str(c) for c in detail.categories]
        self.doubtful = np.zeros(len(self.row), dtype="int8")
        for kind, name in enumerate(DOUBTFUL_ORDER, start=1):
            self.doubtful[self.line_type == name] = kind
        codes, _ = pd.factorize(self.phone_number)
        self.group = codes.astype("int32")
        # Rows with a number, by number then row: the first of each run is the one kept.
        order = np.argsort(self.group, kind="stable")
        self.group_order = order[self.group[order] >= 0].astype("int32")
        self.regions: list[str] = [str(r) for r in self.region.categories]
        valid_codes = np.unique(self.region.codes[self.valid])
        self.valid_regions = [self.regions[c] for c in valid_codes if c >= 0]
        for name in fields:
            self._fields[name] = _joined(name, values.pop(name))

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
        values: dict[str, list[tuple[np.ndarray, list[Any]]]] = {name: [] for name in wanted}
        count = 0
        for name in wanted:
            self.passes[name] += 1
        for block in self.recipients.blocks(wanted, self.block_rows):
            count += len(block)
            for name in wanted:
                values[name].append(_distinct(block[name].to_numpy(dtype=object), name))
        if count != len(self):
            raise ValidationError(
                self.recipients.field,
                f"changed while being read: {count} rows now, {len(self)} before",
            )
        for name in wanted:
            self._fields[name] = _joined(name, values.pop(name))

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

        order = self.group_order
        kept = order[candidates[order]]
        groups = self.group[kept]
        starts = np.ones(len(kept), dtype=bool)
        starts[1:] = groups[1:] != groups[:-1]
        if starts.all():
            empty = np.zeros(0, dtype="int64")
            return empty, empty
        firsts = kept[np.maximum.accumulate(np.where(starts, np.arange(len(kept)), 0))]
        repeat = ~starts
        return kept[repeat].astype("int64"), self.row[firsts[repeat]]


def _number_issues(checks: pd.DataFrame) -> tuple[np.ndarray, pd.Categorical]:
    """Per row of a block's number checks: the number's issue (an ISSUES code, -1 for
    none) and its detail."""
    import numpy as np
    import pandas as pd

    count = len(checks)
    issue = np.full(count, -1, dtype="int8")
    detail = np.full(count, None, dtype=object)
    invalid = ~checks["valid"].to_numpy(dtype=bool)
    issue[invalid] = ISSUES.index("invalid_number")
    detail[invalid] = checks["reason"].to_numpy(dtype=object)[invalid]
    line_type = checks["type"]
    no_sms = line_type.isin(list(NO_SMS_LINE_TYPES)).to_numpy() & ~invalid
    issue[no_sms] = ISSUES.index("cannot_receive_sms")
    detail[no_sms] = [f"line type {t}" for t in line_type.to_numpy(dtype=object)[no_sms]]
    return issue, pd.Categorical(detail)


def _distinct(values: np.ndarray, name: str) -> tuple[np.ndarray, list[Any]]:
    """A block's values of one field as codes into its distinct keys: a key is the value's
    text, a :class:`_Refused` for a value that is not a scalar; missing values get code -1."""
    import pandas as pd

    if pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        keys: list[str | _Refused | None] = []
        for value in values:
            try:
                keys.append(field_text(value, name))
            except ValidationError:
                keys.append(_Refused(type(value).__name__))
        values = _object_array(keys)
    codes, uniques = pd.factorize(values)
    return codes, [u if isinstance(u, _Refused) else str(u) for u in uniques]


def _object_array(items: list[Any]) -> np.ndarray:
    import numpy as np

    array = np.empty(len(items), dtype=object)
    array[:] = items
    return array


def _joined(name: str, blocks: list[tuple[np.ndarray, list[Any]]]) -> FieldValues:
    """One :class:`FieldValues` from each block's codes and distinct keys (missing last)."""
    import numpy as np
    import pandas as pd

    keys = [key for _, block_keys in blocks for key in block_keys]
    merged, uniques = pd.factorize(_object_array(keys))
    missing = len(uniques)
    parts = []
    offset = 0
    for codes, block_keys in blocks:
        lookup = np.append(merged[offset : offset + len(block_keys)], missing).astype("int32")
        parts.append(lookup[codes])  # code -1 (missing) picks the last entry
        offset += len(block_keys)
    texts = ["" if isinstance(u, _Refused) else str(u) for u in uniques]
    refused = [u.type_name if isinstance(u, _Refused) else None for u in uniques]
    return FieldValues(
        name,
        np.concatenate(parts) if parts else np.zeros(0, dtype="int32"),
        (*texts, ""),
        (*refused, None),
    )
