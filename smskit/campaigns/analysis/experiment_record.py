"""An experiment's record: ``<directory>/<name>.experiment.json``, written before any send.

It holds what the experiment is (arms and their texts, sender, send options, region, the
holdout: its size, seed and strata), how its
audience was split (the seed, the stratification, each input row's arm and stratum) and a
digest of the recipients' numbers, so that making the experiment again with the same name
adopts this split instead of drawing a new one, and a reload (:meth:`Experiment.load`) finds
every arm's journal. What each arm sent is its own campaign journal's
(``<name>.<arm>.journal.sqlite`` beside it). The file is written once, whole (a temporary
file renamed over), readable by its owner only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from smskit.errors import ConfigurationError
from smskit.rules.canonical import canonical_json

__all__ = ["FORMAT", "ExperimentRecord", "arm_journal", "numbers_digest", "record_path"]

FORMAT: Final = "smskit-experiment/1"


@dataclass(frozen=True)
class ExperimentRecord:
    """What an experiment is and how it split its audience (see the module docstring).

    ``assignment[row]`` is input row ``row``'s arm, as a position in ``arms``; ``strata``
    each row's stratum when the split was stratified (else None).
    """

    name: str
    created: str  # ISO 8601, aware
    arms: dict[str, str]  # arm -> text, the control first
    sender: str
    options: dict[str, Any]
    default_region: str | None
    seed: int
    stratify: str | None
    recipients: int
    numbers: str  # numbers_digest of the recipients
    assignment: list[int]
    strata: list[str] | None = None
    # The no-send arm: {"size", "seed", "stratify"} of each arm's holdout (None: none).
    holdout: dict[str, Any] | None = None

    @property
    def created_at(self) -> datetime:
        return datetime.fromisoformat(self.created)

    def rows_of(self, arm: str) -> list[int]:
        """The input rows of ``arm``, in order (an arm's journal row ``i`` is the ``i``-th)."""
        position = list(self.arms).index(arm)
        return [row for row, given in enumerate(self.assignment) if given == position]

    def differences(self, other: ExperimentRecord) -> list[str]:
        """The fields (split aside) where ``other`` describes another experiment."""
        fields = ("arms", "sender", "options", "default_region", "stratify", "recipients",
                  "numbers", "holdout")  # fmt: skip
        # The arms in order: the first is the control.
        found = [n for n in fields if getattr(self, n) != getattr(other, n)]
        if "arms" not in found and list(self.arms.items()) != list(other.arms.items()):
            found.insert(0, "arms")
        return found

    def write(self, path: Path) -> None:
        """Write the record at ``path`` whole (a temporary file renamed over), mode 0600."""
        body = json.dumps({"format": FORMAT, **asdict(self)}, ensure_ascii=False)
        partial = path.with_name(path.name + ".partial")
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, path)

    @classmethod
    def read(cls, path: Path) -> ExperimentRecord:
        """The record at ``path``; a file that is not one is refused (ConfigurationError)."""
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigurationError(f"no experiment at {str(path)!r}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigurationError(f"{str(path)!r} is not an experiment record: {exc}") from None
        if not isinstance(body, Mapping) or body.get("format") != FORMAT:
            raise ConfigurationError(
                f"{str(path)!r} is not an experiment record (format {FORMAT!r})"
            )
        return cls(**_checked_fields(body, path))


# What each field must be in a record read back: a file edited by hand, or cut short, is
# refused naming the field, never read as another split.
_KINDS: Final[dict[str, tuple[type, ...]]] = {
    "name": (str,), "created": (str,), "arms": (dict,), "sender": (str,), "options": (dict,),
    "default_region": (str, type(None)), "seed": (int,), "stratify": (str, type(None)),
    "recipients": (int,), "numbers": (str,), "assignment": (list,),
    "strata": (list, type(None)), "holdout": (dict, type(None)),
}  # fmt: skip


def _checked_fields(body: Mapping[str, Any], path: Path) -> dict[str, Any]:
    def refuse(name: str, rule: str) -> ConfigurationError:
        return ConfigurationError(f"experiment record {str(path)!r}: {name} {rule}")

    fields: dict[str, Any] = {}
    for name, kinds in _KINDS.items():
        value = body.get(name)
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise refuse(name, f"must be {' or '.join(k.__name__ for k in kinds)}")
        fields[name] = value
    arms, size = fields["arms"], fields["recipients"]
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in arms.items()) or not arms:
        raise refuse("arms", "must map arm names to texts")
    assignment = fields["assignment"]
    if len(assignment) != size or not all(
        type(arm) is int and 0 <= arm < len(arms) for arm in assignment
    ):
        raise refuse("assignment", f"must give each of the {size} rows an arm")
    strata = fields["strata"]
    if strata is not None and (len(strata) != size or not all(isinstance(s, str) for s in strata)):
        raise refuse("strata", f"must give each of the {size} rows a stratum")
    return fields


def record_path(directory: Path, name: str) -> Path:
    """Where the experiment ``name`` keeps its record."""
    return directory / f"{name}.experiment.json"


def arm_journal(directory: Path, name: str, arm: str) -> Path:
    """The journal of arm ``arm`` of experiment ``name``."""
    return directory / f"{name}.{arm}.journal.sqlite"


def numbers_digest(numbers: Sequence[Any], regions: Sequence[Any]) -> str:
    """A digest of the recipients' numbers and countries, in order, as given."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(canonical_json([None if v is None else str(v) for v in numbers]).encode())
    digest.update(b"\n" + canonical_json([None if v is None else str(v) for v in regions]).encode())
    return digest.hexdigest()
