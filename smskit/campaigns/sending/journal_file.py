"""What an existing file given as a journal holds, checked before anything writes to it.

A campaign journal and an HLR cache are SQLite files of one format (see
:mod:`smskit.campaigns.sending.journal`). Opening applies that format's schema, which would add its
tables to any SQLite file, and a campaign read from a file that holds none would be read as
an empty one. So a file is refused, unchanged, when it is not SQLite, when it holds tables of
another kind (another application's database, an inbox), when its journal format is another
version, or, where a campaign is needed (resume, load), when it holds no campaign (an HLR
cache, an empty journal).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from functools import cache
from pathlib import Path
from typing import Final

from smskit import _sqlite
from smskit.errors import ConfigurationError

__all__ = [
    "JOURNAL_SUFFIX",
    "check_journal_file",
    "connect_journal",
    "holds_a_campaign",
    "numbered_journal",
]

# A campaign's journal is ``<name>.journal.sqlite``, and a name may hold dots of its own.
JOURNAL_SUFFIX: Final = ".journal.sqlite"


def numbered_journal(path: Path, number: int) -> Path:
    """``<name>-<number>.journal.sqlite`` beside ``<name>.journal.sqlite``, any other file
    ``<stem>-<number><suffix>``: the journal of the ``number``-th campaign sent as ``path``'s.

    The number goes after the whole name: a campaign's name may hold dots (an unnamed one's
    creation time ``...T101500.123456Z-...``, an experiment's arm ``<experiment>.<arm>``),
    and numbering inside it would give another campaign's journal name."""
    name = path.name
    if name.endswith(JOURNAL_SUFFIX):
        return path.with_name(f"{name[: -len(JOURNAL_SUFFIX)]}-{number}{JOURNAL_SUFFIX}")
    return path.with_name(f"{path.stem}-{number}{path.suffix}")


# Tables journals of this format held before: the HLR answers (now in their own cache file).
_EARLIER_TABLES: Final = frozenset({"hlr"})
# The tables a schema creates, read at every journal opening: once per schema.
_tables = cache(_sqlite.schema_tables)


def check_journal_file(path: Path, schema: str, version: int, *, campaign: bool) -> None:
    """Refuse ``path`` (left as it is) unless it is empty, or an smskit journal of format
    ``version`` whose tables are those of ``schema``, holding a campaign if ``campaign``."""
    if not path.is_file() or path.stat().st_size == 0:
        return  # a new journal, or a missing one (the caller says which it allows)
    where = f"{str(path)!r}"
    try:
        with closing(sqlite3.connect(path)) as db:
            tables = {name for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}  # fmt: skip
            meta = dict(db.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
    except sqlite3.DatabaseError as exc:
        raise ConfigurationError(f"{where} is not an smskit journal (not SQLite: {exc})") from exc
    foreign = sorted(tables - _tables(schema) - _EARLIER_TABLES)
    if foreign:
        kind = (
            "the HLR cache" if foreign == ["hlr_answers"] else "an SQLite database of another kind"
        )
        raise ConfigurationError(
            f"{where} is not an smskit journal: it is {kind} (tables {', '.join(foreign)}); "
            "it was left unchanged"
        )
    found = _json(meta.get("format"))
    if meta and found != version:
        raise ConfigurationError(
            f"{where} is an smskit journal of format {found!r}; this smskit reads format "
            f"{version} (finish it with the smskit version that started it)"
        )
    if campaign and "campaign_id" not in meta:
        raise ConfigurationError(
            f"{where} holds no campaign (an HLR cache, or a journal never initialised): "
            "give the journal of a campaign that was sent"
        )


def holds_a_campaign(path: Path) -> bool:
    """Whether the SQLite file at ``path`` (with a ``meta`` table) holds a campaign."""
    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT 1 FROM meta WHERE key = 'campaign_id'").fetchone() is not None


def connect_journal(path: Path, schema: str, version: int, *, campaign: bool) -> sqlite3.Connection:
    """``path`` checked (:func:`check_journal_file`), then opened with ``schema`` applied."""
    check_journal_file(path, schema, version, campaign=campaign)
    try:
        return _sqlite.connect(path, schema)
    except sqlite3.DatabaseError as exc:  # damaged past its header
        raise ConfigurationError(f"{str(path)!r} is not an smskit journal: {exc}") from exc


def _json(text: object) -> object:
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text
