"""Which gateway a journal's campaign went to, and a client back to it for a resume.

A journal records the gateway URL and the login it was sent with, never the key. A resume
without a client goes back to that gateway: to the sandbox still running in this process, or
with the key from ``SMSKIT_API_KEY``. Anything else is refused with the reason: a resume on
another gateway (a fresh embedded sandbox, say) would not know the chunks already accepted.

An embedded sandbox (``smskit.Client()`` with nothing configured, ``smskit.Sandbox()``)
lives as long as its process, or until it is stopped: its journals then hold finished
history (:func:`ended_sandbox`). Nothing of them can be resumed; a send of the same campaign
starts a new one in the next free journal beside it (:func:`journal_for_send`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

from smskit.campaigns.sending.journal import Journal, open_leased
from smskit.campaigns.sending.journal_file import numbered_journal
from smskit.campaigns.sending.record import CampaignRecord
from smskit.campaigns.sending.runner import check_concurrency
from smskit.client import AsyncClient, Client
from smskit.client.config import ENV_KEY, ENV_LOGIN, Secret, running_sandbox
from smskit.errors import ConfigurationError, SandboxEndedError, advised

__all__ = ["ended_sandbox", "journal_for_send", "reconnect", "reopen"]

C = TypeVar("C", Client, AsyncClient)

ASK = "pass client=smskit.Client(...) for the gateway it was sent to"


async def reopen(
    journal_path: str | Path, client: Client | AsyncClient | None, *, concurrency: int, wait: float
) -> tuple[Journal, Client | AsyncClient]:
    """What a resume needs: the journal, its lease held (waiting up to ``wait`` s without
    blocking the loop), and ``client``, else one on the gateway the journal records (only
    ever used through an async twin, see ``blocking.async_client``)."""
    concurrency = check_concurrency(concurrency)
    sender = client if client is not None else reconnect(journal_path, Client)
    return await open_leased(journal_path, wait=wait), sender


def reconnect(journal_path: str | Path, kind: type[C]) -> C:
    """A ``kind`` client on the gateway the journal records; a ConfigurationError says why not."""
    with Journal(journal_path) as book:
        recorded = book.held().gateway
    where = f"journal {str(journal_path)!r}"
    if recorded is None:
        fact = f"{where} records no gateway"
        raise advised(ConfigurationError(f"{fact}: {ASK}"), fact, "client")
    url, login = recorded.base_url, recorded.api_login
    box = running_sandbox(url)
    if box is not None:
        return kind(sandbox=box)
    if recorded.sandbox:
        raise SandboxEndedError(journal_path, url)
    # Neither the environment nor the key is held in a local: a traceback shows locals.
    if not _env(ENV_KEY):
        fact = f"{where} was sent to {url} as {login!r}"
        raise advised(
            ConfigurationError(f"{fact}: set {ENV_KEY} to that account's key, or {ASK}"),
            fact,
            "api_key",
        )
    other = _env(ENV_LOGIN)
    if other and other != login:
        fact = f"{where} was sent as {login!r} but {ENV_LOGIN} is {other!r}"
        raise advised(ConfigurationError(f"{fact}: {ASK}"), fact, "api_login")
    return kind(api_login=login, api_key=Secret(_env(ENV_KEY) or ""), base_url=url)


def _env(name: str) -> str | None:
    return os.environ.get(name) or None


def ended_sandbox(record: CampaignRecord | None) -> str | None:
    """The URL of the embedded sandbox a journal's campaign was sent to (``record``: the
    journal's), when that sandbox no longer runs in this process; None for any other gateway
    (a sandbox running here, a gateway reached by URL and key)."""
    recorded = None if record is None else record.gateway
    if recorded is None or not recorded.sandbox:
        return None
    return recorded.base_url if running_sandbox(recorded.base_url) is None else None


def journal_for_send(path: Path) -> tuple[Path, Path | None]:
    """The journal a send asked to use ``path`` uses, and the journal it passed over.

    ``path`` itself, unless it holds a campaign sent to an embedded sandbox that has ended
    (:func:`ended_sandbox`): that journal is finished history, kept as it is, and the send
    takes the first of ``<name>-2``, ``<name>-3`` ... beside it (``numbered_journal``) that
    is free or holds a campaign of a gateway still reachable (it is then continued, or
    refused as another campaign's, as ``path`` would be). The second value is ``path`` when
    passed over.
    """
    candidate, number = path, 1
    while _ended(candidate):
        number += 1
        candidate = numbered_journal(path, number)
    return candidate, (None if candidate == path else path)


def _ended(path: Path) -> bool:
    """Whether ``path`` is a journal of an ended sandbox's send. Anything else there (no file,
    an empty one, one that is not a journal) is for the send's own opening to take or
    refuse, as it would without this check."""
    if not path.is_file():
        return False
    try:
        with Journal(path) as book:
            return ended_sandbox(book.record()) is not None
    except (ConfigurationError, ValueError):
        return False
