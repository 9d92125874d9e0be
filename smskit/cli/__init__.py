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
| 3 | configuration: credentials, gateway URL, an `SMSKIT_*` setting smskit cannot use, a |
|   | missing extra, a port that cannot be used |
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

from smskit.errors import SmskitError

__all__ = ["cli", "main"]

try:
    from smskit.cli.main import cli, main
except SmskitError as refused:
    # A setting smskit reads as it loads ($SMSKIT_DEFAULT_REGION) and cannot use: no command
    # exists yet to catch it, so the entry point says it in one line, exit 3 (configuration),
    # even for --help; the library raises it as the import's error.
    _REFUSAL = f"smskit: error: {refused}"

    def main(argv: Sequence[str] | None = None) -> int:
        """The ``smskit`` command when smskit cannot load: the refusal, exit 3."""
        print(_REFUSAL, file=sys.stderr)
        return 3
