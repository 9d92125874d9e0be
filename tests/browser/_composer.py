"""The Composer's sender and send_at boxes driven as a user would, in any host (JupyterLab,
Notebook 7, marimo): each bad value blocks the send and the page says why, the value the box
had before unblocks it."""

from __future__ import annotations

from typing import Any

TOO_LONG_SENDER = "MyShopIsTooLong"  # 15 characters: a sender ID has 3 to 11
NOT_A_DATE = "next tuesday"  # send_at is an ISO 8601 date-time with its offset


def block_and_restore_sender_and_send_at(composer: Any, wait_ms: int) -> None:
    """Type a too-long sender, then a send_at that is no date: "send" is disabled each time,
    saying which rule; the earlier values (restored) enable it again. "send" must be enabled
    before."""
    from playwright.sync_api import expect

    send = composer.get_by_role("button", name="send", exact=True)
    why = composer.locator(".smskit-why")
    expect(send).to_be_enabled(timeout=wait_ms)
    sender = composer.get_by_label("sender")
    was = sender.input_value()
    sender.fill(TOO_LONG_SENDER)
    expect(why).to_contain_text("send is disabled: sender:", timeout=wait_ms)
    expect(why).to_contain_text("3 to 11 characters")
    expect(send).to_be_disabled()
    sender.fill(was)
    expect(send).to_be_enabled(timeout=wait_ms)

    send_at = composer.get_by_label("send_at")
    was = send_at.input_value()
    send_at.fill(NOT_A_DATE)
    send_at.press("Tab")  # the box answers when it is left (its change event)
    expect(why).to_contain_text("send is disabled: options: send_at:", timeout=wait_ms)
    expect(send).to_be_disabled()
    send_at.fill(was)
    send_at.press("Tab")
    expect(send).to_be_enabled(timeout=wait_ms)
    expect(why).to_have_text("")
