"""``python -m smskit.sandbox``: run the sandbox gateway standalone until Ctrl-C.

The API key comes from ``--api-key`` or ``SMSKIT_API_KEY`` (so one exported variable
serves both the server and the client); otherwise a random key is made, and printed only
with ``--show-key``: a key on a terminal ends up in scrollback and screenshots.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="python -m smskit.sandbox", description="Run the smskit sandbox gateway."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="TCP port (0: any free port)")
    parser.add_argument(
        "--path", default=None, help="SQLite file keeping the state (default: memory)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of tickets, tokens and HLR answers"
    )
    parser.add_argument("--login", default="sandbox", help="account login (default sandbox)")
    parser.add_argument(
        "--api-key", default=None, help="API key (default: $SMSKIT_API_KEY, else a random one)"
    )
    parser.add_argument("--show-key", action="store_true", help="print the API key at start")
    return parser


def main(argv: Sequence[str] | None = None, *, stop: threading.Event | None = None) -> int:
    """Start, print how to connect, serve until Ctrl-C (or until ``stop`` is set)."""
    from smskit.sandbox import Sandbox

    args = build_parser().parse_args(argv)
    key = args.api_key or os.environ.get("SMSKIT_API_KEY") or None
    sandbox = Sandbox(
        args.path, seed=args.seed, host=args.host, port=args.port, login=args.login, api_key=key
    )
    try:
        sandbox.start()
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"smskit sandbox gateway on {sandbox.url} (OpenAPI: {sandbox.url}/openapi.json)")
    print(f"  export SMSKIT_BASE_URL={sandbox.url}")
    print(f"  export SMSKIT_API_LOGIN={sandbox.login}")
    if args.show_key:
        print(f"  export SMSKIT_API_KEY={sandbox.api_key}")
    elif key is None:
        print("  API key: random; rerun with --show-key to print it, or set SMSKIT_API_KEY")
    else:
        print("  API key: the one given (--api-key or SMSKIT_API_KEY)")
    print("Ctrl-C stops it.", flush=True)
    waiter = stop or threading.Event()
    try:
        while not waiter.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        sandbox.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
