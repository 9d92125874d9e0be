"""Whether a path names a file smskit can read: a regular file, stored on disk.

smskit reads a file whole, and often more than once (the CSV reader checks its bytes, then
its quotes, then reads its header and rows; SQLite seeks in its store). A named pipe (FIFO)
blocks until another program writes to it and its bytes are gone once read, a socket or a
device is no file at all: a command given one hung (``smskit hlr pipe.csv`` waited forever)
or named it wrongly ("no such file", "an empty file", "disk I/O error"). So such a path is
refused naming what it is; a path that names nothing, or a directory, is left to the
reader's own words (which say "no such file" or "is a directory").

May import: the standard library and ``smskit.errors``. Looks at a path (``os.stat``),
never opens it.
"""

from __future__ import annotations

import os
import stat
from typing import Final

from smskit.errors import ValidationError

__all__ = ["RULE_REGULAR_FILE", "check_regular_file", "special_file"]

RULE_REGULAR_FILE: Final = (
    "not a file stored on disk: smskit reads a file whole, and more than once (copy what "
    "it holds into a file, and give that file's path)"
)


def special_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` names when it is neither a regular file, a directory nor nothing: "a
    named pipe (FIFO)", "a socket" or "a device"; None otherwise (links are followed)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # nothing there, a name too long, a NUL byte
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    return "a socket" if stat.S_ISSOCK(mode) else "a device"


def check_regular_file(path: str | os.PathLike[str], field: str, then: str = "") -> None:
    """Refuse ``path`` (given as ``field``) when it names a pipe, a socket or a device,
    naming it and the rule (``then`` appended: the caller's own rule of what to give);
    before anything opens it (opening a pipe to read blocks)."""
    kind = special_file(path)
    if kind is not None:
        said = f"{os.fspath(path)!r} is {kind}, {RULE_REGULAR_FILE}{then}"
        raise ValidationError(field, said)
