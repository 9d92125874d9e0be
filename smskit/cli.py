"""The ``smskit`` command: ``smskit sandbox [--port N ...]`` and ``smskit version``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    """The command line; ``sandbox`` passes its options through to the sandbox runner."""
    parser = argparse.ArgumentParser(prog="smskit", description="smskit command line.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "sandbox",
        help="run the embedded sandbox gateway until Ctrl-C (see: smskit sandbox --help)",
        add_help=False,
    )
    commands.add_parser("version", help="print the smskit version")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the process exit status."""
    args, rest = build_parser().parse_known_args(argv)
    if args.command == "sandbox":
        from smskit.sandbox.__main__ import main as sandbox_main

        return sandbox_main(rest)
    if rest:
        build_parser().error(f"unrecognized arguments: {' '.join(rest)}")
    from smskit._version import __version__

    print(f"smskit {__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
