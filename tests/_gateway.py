"""A sandbox whose delivery reports reach an inbox, and a client of it (shared set-up of the
tests that follow a send to its reports, clicks and outcomes)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
