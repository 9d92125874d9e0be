"""``smskit sandbox``: the embedded gateway, standalone, until Ctrl-C (or SIGTERM).

The key: ``--api-key`` or ``SMSKIT_API_KEY`` (one exported variable then serves the server
and its clients), else a random one. The user needs it at once, without a restart, but a key
printed to a log or a CI transcript leaks: so it is printed only where a person reads
(stdout a terminal, or ``--show-key``), and always written with the other settings to an env
file only its owner can read (mode 0600), whose ``source`` line is printed.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import click

from smskit.cli.options import file_option
from smskit.cli.output import EXIT_CONFIG, stopped_by_signals

# Set by tests that run the command in-process, to stop it as Ctrl-C would.
STOP = threading.Event()


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="TCP port (0: any free port).",
)
@file_option("--path", made=True, help="SQLite file keeping the state (default: memory).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of tickets and HLR.")
@click.option("--login", default="sandbox", show_default=True, help="Account login.")
@click.option(
    "--api-key",
    envvar="SMSKIT_API_KEY",
    help="API key (default: $SMSKIT_API_KEY, else a random one).",
)
@click.option(
    "--show-key/--hide-key",
    default=None,
    help="Print the key in the export lines (default: only when stdout is a terminal).",
)
@file_option(
    "--env-file",
    made=True,
    help="Where the export lines go, mode 0600 (default: sandbox.env in the per-user data dir).",
)
def sandbox(
    host: str,
    port: int,
    path: Path | None,
    seed: int,
    login: str,
    api_key: str | None,
    show_key: bool | None,
    env_file: Path | None,
) -> int:
    """Run the sandbox gateway on HOST:PORT until Ctrl-C, and print how to connect to it."""
    from smskit._paths import data_dir
    from smskit.sandbox import Sandbox

    box = Sandbox(
        None if path is None else str(path),
        seed=seed,
        host=host,
        port=port,
        login=login,
        api_key=api_key or None,
    )
    try:
        box.start()
    except OSError as exc:
        click.echo(
            f"smskit sandbox: error: cannot listen on {host} port {port}: {exc.strerror or exc}",
            err=True,
        )
        return EXIT_CONFIG
    try:
        with stopped_by_signals():
            exports = {
                "SMSKIT_BASE_URL": box.url,
                "SMSKIT_API_LOGIN": box.login,
                "SMSKIT_API_KEY": box.api_key,
            }
            target = env_file if env_file is not None else data_dir() / "sandbox.env"
            _write_private(target, "".join(f"export {k}={v}\n" for k, v in exports.items()))
            shown = sys.stdout.isatty() if show_key is None else show_key
            click.echo(f"smskit sandbox gateway on {box.url} (OpenAPI: {box.url}/openapi.json)")
            for name, value in exports.items():
                if shown or name != "SMSKIT_API_KEY":
                    click.echo(f"  export {name}={value}")
            click.echo(f"  source {target}   # all three, the key included (file mode 0600)")
            click.echo("Ctrl-C stops it.")
            sys.stdout.flush()
            while not STOP.wait(0.5):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        box.stop()
    return 0


def _write_private(path: Path, content: str) -> None:
    """Write ``content`` to a file only its owner can read, whatever umask or file was there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # an existing file keeps its mode through os.open
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(content)
