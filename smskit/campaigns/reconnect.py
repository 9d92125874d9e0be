"""Which gateway a journal's campaign went to, and a client back to it for a resume.

A journal records the gateway URL and the login it was sent with, never the key. A resume
without a client goes back to that gateway: to the sandbox still running in this process, or
with the key from ``SMSKIT_API_KEY``. Anything else is refused with the reason: a resume on
another gateway (a fresh embedded sandbox, say) would not know the chunks already accepted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from smskit.campaigns.arguments import check_concurrency
from smskit.campaigns.journal import Journal, open_leased
from smskit.client import AsyncClient, Client
from smskit.client.config import ENV_KEY, ENV_LOGIN, Secret, running_sandbox
from smskit.errors import ConfigurationError

__all__ = ["gateway_record", "reconnect", "reopen"]

C = TypeVar("C", Client, AsyncClient)

ASK = "pass client=smskit.Client(...) for the gateway it was sent to"


def gateway_record(client: Client | AsyncClient) -> dict[str, Any]:
    """What a journal keeps of the gateway: URL, login and whether it was a sandbox."""
    return {
        "base_url": client.base_url,
        "api_login": client.api_login,
        "sandbox": client.is_sandbox,
    }


async def reopen(
    journal_path: str | Path,
    client: Client | AsyncClient | None,
    *,
    concurrency: int,
    wait: float,
) -> tuple[Journal, Client | AsyncClient]:
    """What a resume needs: the journal, its lease held (waiting up to ``wait`` s without
    blocking the loop), and ``client``, else one on the gateway the journal records (only
    ever used through an async twin, see ``blocking.async_client``)."""
    check_concurrency(concurrency)
    sender = client if client is not None else reconnect(journal_path, Client)
    return await open_leased(journal_path, wait=wait), sender


def reconnect(
    journal_path: str | Path, kind: type[C], environ: Mapping[str, str] | None = None
) -> C:
    """A ``kind`` client on the gateway the journal records; a ConfigurationError says why not."""
    with Journal(journal_path) as book:
        recorded = book.meta().get("gateway")
    where = f"journal {str(journal_path)!r}"
    if not isinstance(recorded, Mapping) or not recorded.get("base_url"):
        raise ConfigurationError(f"{where} records no gateway: {ASK}")
    url, login = str(recorded["base_url"]), str(recorded.get("api_login", ""))
    box = running_sandbox(url)
    if box is not None:
        return kind(sandbox=box)
    if recorded.get("sandbox"):
        raise ConfigurationError(
            f"{where} was sent to an embedded sandbox ({url}) that no longer runs, and a new "
            f"one would not know its sends: {ASK}"
        )
    # Neither the environment nor the key is held in a local: a traceback shows locals.
    if not _env(ENV_KEY, environ):
        raise ConfigurationError(
            f"{where} was sent to {url} as {login!r}: set {ENV_KEY} to that account's key, or {ASK}"
        )
    other = _env(ENV_LOGIN, environ)
    if other and other != login:
        raise ConfigurationError(
            f"{where} was sent as {login!r} but {ENV_LOGIN} is {other!r}: {ASK}"
        )
    return kind(api_login=login, api_key=Secret(_env(ENV_KEY, environ) or ""), base_url=url)


def _env(name: str, environ: Mapping[str, str] | None) -> str | None:
    return (os.environ if environ is None else environ).get(name) or None
