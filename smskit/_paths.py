"""Where smskit keeps files nobody named: per-user directories, never the working directory.

- campaign journals (state a resume needs; never deleted by smskit):
  ``user_data_path("smskit") / "campaigns"``, e.g. ``~/.local/share/smskit/campaigns`` on Linux,
  ``~/Library/Application Support/smskit/campaigns`` on macOS;
- the replies ``smskit replies serve`` receives, and ``smskit sandbox``'s ``sandbox.env``
  (mode 0600): in ``user_data_path("smskit")``;
- every account's opt-out list (never deleted by smskit: it is what keeps a number that
  said STOP from the next campaign): ``user_data_path("smskit") / "optouts.sqlite"``
  (``smskit.replies.optouts.optouts_path``);
- the bulk HLR answer cache (safe to delete: it only saves paying twice for a check):
  ``user_cache_path("smskit") / "hlr.sqlite"``, e.g. ``~/.cache/smskit/hlr.sqlite`` on Linux.

On Linux ``XDG_DATA_HOME`` and ``XDG_CACHE_HOME`` move them, as for any other program.
"""

from __future__ import annotations

import os
from pathlib import Path

from smskit.errors import ConfigurationError, ValidationError

__all__ = [
    "campaigns_dir",
    "check_directory_of",
    "check_not_replacing",
    "data_dir",
    "hlr_cache_path",
    "replies_path",
]


def check_directory_of(path: str | os.PathLike[str], verb: str = "written") -> None:
    """Refuse a file to be ``verb`` (written, opened) in a directory that does not exist,
    naming the directory (the OS's own error, or SQLite's "unable to open database file",
    says less)."""
    parent = Path(os.fspath(path)).parent
    if not parent.is_dir():
        raise ConfigurationError(
            f"{os.fspath(path)!r} cannot be {verb}: its directory {str(parent)!r} does not "
            "exist (create it, or give another path)"
        )


_SQLITE_HEADER = b"SQLite format 3\x00"


def check_not_replacing(
    path: str | os.PathLike[str], field: str, reads: tuple[str | os.PathLike[str], ...] = ()
) -> None:
    """Refuse to write a file over one it would destroy: a file the same command reads
    (``reads``: an input CSV, the list being exported), or an SQLite database (a journal,
    an inbox, an opt-out list, a cache: what smskit keeps, never a CSV to overwrite).
    ``field`` names the option or argument. Any other existing file is replaced, as asked."""
    target = Path(os.fspath(path))
    if not target.is_file():
        return
    with open(target, "rb") as head:
        if head.read(len(_SQLITE_HEADER)) == _SQLITE_HEADER:
            raise ValidationError(
                field,
                "is an SQLite database (a journal, an inbox, an opt-out list, a cache): a "
                "CSV written there would destroy it (write to another file)",
                value=os.fspath(path),
            )
    for read in reads:
        if Path(os.fspath(read)).is_file() and os.path.samefile(target, read):
            raise ValidationError(
                field,
                "is the file this command reads: writing there would replace it (write to "
                "another file)",
                value=os.fspath(path),
            )


APP = "smskit"


def data_dir() -> Path:
    """smskit's per-user data directory (created on first use)."""
    from platformdirs import user_data_path

    path = user_data_path(APP, appauthor=False)
    path.mkdir(parents=True, exist_ok=True)
    return path


def campaigns_dir() -> Path:
    """The directory of campaign journals (created on first use)."""
    path = data_dir() / "campaigns"
    path.mkdir(exist_ok=True)
    return path


def replies_path() -> Path:
    """The callbacks' store ``smskit replies serve`` keeps by default (replies, delivery
    reports, STOPs), which ``CampaignResult.outcomes()`` reads by default."""
    return data_dir() / "replies.sqlite"


def hlr_cache_path() -> Path:
    """The SQLite file of cached HLR answers (its directory created on first use)."""
    from platformdirs import user_cache_path

    directory = user_cache_path(APP, appauthor=False)
    directory.mkdir(parents=True, exist_ok=True)
    return directory / "hlr.sqlite"
