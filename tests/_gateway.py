"""A sandbox whose callbacks reach an inbox, and a client of it (shared set-up of the tests
that follow a send to its reports, replies, clicks and outcomes)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import smskit
from smskit.replies import Inbox
from smskit.sandbox import DeliveryModel, Sandbox


@contextmanager
def reporting_gateway(
    model: DeliveryModel, inbox_path: Path | None
) -> Iterator[tuple[Sandbox, Inbox, smskit.Client]]:
    """A sandbox of ``model`` posting its delivery reports to an inbox at ``inbox_path`` (in
    memory when None), and a client of it; all three closed after."""
    with (
        Sandbox(delivery_model=model) as sandbox,
        Inbox(inbox_path) as inbox,
        smskit.Client(sandbox=sandbox) as client,
    ):
        sandbox.set_callback_url(inbox.url, kind="delivery_report")
        yield sandbox, inbox, client


@contextmanager
def callback_gateway(
    inbox_path: Path | None, **options: Any
) -> Iterator[tuple[Sandbox, Inbox, smskit.Client]]:
    """An inbox at ``inbox_path`` (in memory when None), a sandbox made with ``options``
    posting every callback (delivery reports, replies, STOPs) to it, and a client of the
    sandbox; all three closed after."""
    with (
        Inbox(inbox_path) as inbox,
        Sandbox(**options) as sandbox,
        smskit.Client(sandbox=sandbox) as client,
    ):
        sandbox.set_callback_url(inbox.url)
        yield sandbox, inbox, client
