"""The ``smskit`` command: the library's public API for shell users and cron jobs.

```
smskit balance | credits [--country FR ...]         the account
smskit hlr IN.csv -o OUT.csv | NUMBER...            bulk line checks, breakdown printed
smskit send --text .. --sender .. --to .. | --csv FILE [--dry-run] [--yes]
smskit campaign status|resume JOURNAL                a journaled campaign
smskit campaign list [PATH...] [--inbox FILE]        the ledger: one line per campaign
smskit replies serve                                 the inbound-SMS receiver
smskit optouts list|history|export|import|add|remove|absorb   the account's opt-out list
smskit sandbox                                       the embedded gateway, standalone
```

Every command talks to the gateway the ``SMSKIT_*`` variables name, or to an embedded
sandbox when none is set (said in one line on stderr, unless ``--quiet`` or stderr is not a
terminal). ``SMSKIT_NOW`` (an ISO 8601 instant with its offset) sets the clock of ``send``
(campaign identity, repeat window, marketing hours) for tests and replays. ``--json`` prints
one JSON document on stdout for scripts; progress bars go to stderr when it is a terminal.

Exit codes (also in ``smskit --help``); nothing done is never 0:

| code | meaning |
|---|---|
| 0 | done: all that was asked now holds (some of it may have held already) |
| 1 | declined at the confirmation, or an unexpected error (a bug) |
| 2 | usage: unknown command, bad or missing option |
| 3 | configuration: credentials, gateway URL, a missing extra, a port that cannot be used |
| 4 | input refused before any request (names the field or row), a file unreadable, or |
|   | nothing in it to do (a header-only file, an inbox without opt-outs) |
| 5 | the gateway answered with an error (authentication, credit, payload) |
| 6 | the gateway could not be reached (names the host) or timed out |
| 7 | ran, but not all of it: numbers without an answer, recipients not sent |
| 8 | another runner is sending that campaign (its journal's lease is held) |
| 9 | nothing to do, done already: the same send < 10 minutes ago, a named campaign |
|   | already sent, a complete journal resumed, numbers already on (add, import, absorb) |
|   | or off (remove) the opt-out list |
| 130 | interrupted (Ctrl-C) |

May import everything below it; it holds no rule of its own (the library decides).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from smskit.errors import SmskitError

if TYPE_CHECKING:
    from smskit.cli.main import cli

__all__ = ["cli", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``smskit`` command (:func:`smskit.cli.main.main`). A setting smskit reads as
    it loads (``SMSKIT_DEFAULT_REGION``) and cannot use is exit 3, one line on stderr: it
    is refused before any command exists to catch it, even ``--help``."""
    try:
        from smskit.cli.main import main as run
    except SmskitError as exc:
        print(f"smskit: error: {exc}", file=sys.stderr)
        return 3  # EXIT_CONFIG (smskit.cli.output cannot be loaded either)
    return run(argv)


def __getattr__(name: str) -> Any:
    """``cli``, the click group, loaded on first use (as :func:`main` loads it)."""
    if name == "cli":
        from smskit.cli.main import cli

        return cli
    raise AttributeError(f"module 'smskit.cli' has no attribute {name!r}")
