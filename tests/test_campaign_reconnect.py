"""Campaign.resume without a client: back to the gateway the journal records, or a clear
ConfigurationError; never a second sandbox that knows nothing of the first sends."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import smskit
import smskit.sandbox
from smskit.campaigns.campaign import Campaign
from smskit.sandbox import Sandbox

TEXT = "Promo -20% ce week-end. STOP au 36173"
ENV = ("SMSKIT_API_LOGIN", "SMSKIT_API_KEY", "SMSKIT_BASE_URL")


@pytest.fixture(autouse=True)
def no_second_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """No SMSKIT_* settings, and starting the shared sandbox fails the test."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)

    def refuse() -> Sandbox:
        raise AssertionError("a second sandbox was started")

    monkeypatch.setattr(smskit.sandbox, "shared", refuse)


def fr_mobiles(count: int) -> list[str]:
    """Distinct valid French mobile numbers."""
    return [f"+3361{i:07d}" for i in range(count)]


def half_sent(client: smskit.Client, sandbox: Sandbox, path: Path) -> None:
    """A campaign of 300 stopped by insufficient credit after its first chunk of 100."""
    sandbox.set_balance(7.0)
    result = Campaign(client, fr_mobiles(300), text=TEXT, sender="Shop").send(
        chunk_size=100, concurrency=1, progress=False, journal=path
    )
    assert not result.complete
    sandbox.set_balance(100.0)


def test_resume_finds_the_sandbox_still_running_in_this_process(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The journal's sandbox still runs: resume goes back to it and finishes the campaign."""
    path = tmp_path / "j.sqlite"
    with smskit.Client(sandbox=fresh_sandbox) as client:
        half_sent(client, fresh_sandbox, path)
    result = Campaign.resume(path, progress=False)
    assert result.complete
    assert sorted(fresh_sandbox.sent()["phone_number"]) == fr_mobiles(300)


def test_resume_reconnects_with_the_recorded_url_and_login_and_the_key_from_the_env(
    fresh_sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A gateway reached by URL: the journal keeps URL and login but never the key; without
    SMSKIT_API_KEY resume asks for it, with it resume finishes on that gateway."""
    path = tmp_path / "j.sqlite"
    key = fresh_sandbox.api_key
    with smskit.Client(fresh_sandbox.login, key, fresh_sandbox.url) as client:
        half_sent(client, fresh_sandbox, path)
    with sqlite3.connect(path) as db:
        stored = " ".join(value for (value,) in db.execute("SELECT value FROM meta"))
    assert fresh_sandbox.url in stored and key not in stored
    with pytest.raises(smskit.ConfigurationError, match="set SMSKIT_API_KEY") as caught:
        Campaign.resume(path, progress=False)
    assert fresh_sandbox.url in str(caught.value) and key not in str(caught.value)
    monkeypatch.setenv("SMSKIT_API_KEY", key)
    assert Campaign.resume(path, progress=False).complete
    assert sorted(fresh_sandbox.sent()["phone_number"]) == fr_mobiles(300)


def test_resume_of_a_stopped_sandbox_says_there_is_nothing_to_resume(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The journal's embedded sandbox is gone: SandboxEndedError says nothing of it can be
    resumed (no new sandbox started), with or without a client of another gateway."""
    path = tmp_path / "j.sqlite"
    with Sandbox(seed=0) as gone, smskit.Client(sandbox=gone) as client:
        half_sent(client, gone, path)
        url = gone.url
    with pytest.raises(smskit.SandboxEndedError, match=r"has ended.*nothing of it"):
        Campaign.resume(path, progress=False)
    other = smskit.Client(sandbox=fresh_sandbox)
    with pytest.raises(smskit.SandboxEndedError, match=url):
        Campaign.resume(path, other, progress=False)
    assert len(fresh_sandbox.sent()) == 0


def test_resume_with_another_login_in_the_env_is_refused(
    fresh_sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMSKIT_API_LOGIN names another account than the journal's: refused before any request."""
    path = tmp_path / "j.sqlite"
    with smskit.Client(fresh_sandbox.login, fresh_sandbox.api_key, fresh_sandbox.url) as client:
        half_sent(client, fresh_sandbox, path)
    monkeypatch.setenv("SMSKIT_API_KEY", fresh_sandbox.api_key)
    monkeypatch.setenv("SMSKIT_API_LOGIN", "someone-else")
    sent = len(fresh_sandbox.sent())
    with pytest.raises(smskit.ConfigurationError, match="'someone-else'"):
        Campaign.resume(path, progress=False)
    assert len(fresh_sandbox.sent()) == sent


@pytest.mark.parametrize("key", ["text", "sender", "options"])
def test_a_journal_that_lost_what_it_sends_is_refused_nothing_sent(
    key: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A journal with chunks left to send whose text, sender or send options are gone (a
    damaged file, edited by hand): resume refuses naming the journal, before any request;
    the 100 sent before stay the only ones."""
    path = tmp_path / "j.sqlite"
    with smskit.Client(sandbox=fresh_sandbox) as client:
        half_sent(client, fresh_sandbox, path)
        with sqlite3.connect(path) as db:
            db.execute("DELETE FROM meta WHERE key = ?", (key,))
        db.close()
        with pytest.raises(smskit.ConfigurationError) as refused:
            Campaign.resume(path, client, progress=False)
    assert str(refused.value) == (
        f"journal {str(path)!r} records no text, sender or send options to send"
    )
    assert len(fresh_sandbox.sent()) == 100
