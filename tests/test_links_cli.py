"""``smskit send --track-links PATH``: the links of the text served by a `replies serve` inbox."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT
from smskit.replies import Inbox
from smskit.rules.links import find_links
from smskit.sandbox import Sandbox


def test_send_tracks_the_links_in_the_inbox_file_another_process_serves(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """The texts carry the inbox's short links, registered in its file; a click redirects."""
    env = {
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
    }
    path = tmp_path / "replies.sqlite"
    with Inbox(path) as served:  # what `smskit replies serve --path` runs
        result = CliRunner().invoke(
            cli,
            ["send", "--text", "Votre colis: https://track.example/c?id=7", "--sender", "Shop",
             "--purpose", "alert", "--to", "+33612345678", "--to", "+33612345679",
             "--track-links", str(path), "--journal", str(tmp_path / "j.sqlite"), "-y"],
            env=env, catch_exceptions=False,
        )  # fmt: skip
        assert result.exit_code == 0, result.output + result.stderr
        sent = fresh_sandbox.sent()
        links = [find_links(text)[0].url for text in sent["text"]]
        assert all(link.startswith(f"{served.link_base}/") for link in links)
        answer = httpx.get(links[0], trust_env=False)
        assert answer.status_code == 302
        assert answer.headers["location"].startswith("https://track.example/c?id=7&utm_source=sms")
        assert served.clicks()["phone_number"].tolist() == [sent["phone_number"].iloc[0]]


def _send_tracked(sandbox: Sandbox, inbox: Path) -> Result:
    """``smskit send`` of a text with a link, its links tracked by ``--track-links inbox``."""
    env = {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
           "SMSKIT_API_KEY": sandbox.api_key}  # fmt: skip
    return CliRunner().invoke(
        cli,
        ["send", "--text", "https://a.example", "--sender", "Shop", "--purpose", "alert",
         "--to", "+33612345678", "--track-links", str(inbox), "-y"],
        env=env,
    )  # fmt: skip


def test_track_links_refuses_a_file_never_served(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """An inbox file that was never served has no address: refused with exit 4, naming it."""
    path = tmp_path / "new.sqlite"
    Inbox(path)  # created, never started
    result = _send_tracked(fresh_sandbox, path)
    assert result.exit_code == EXIT_INPUT
    assert "--track-links" in result.stderr and "replies serve" in result.stderr
    assert "start()" not in result.stderr and "with Inbox" not in result.stderr  # no Python


@pytest.mark.parametrize("kind", ["CSV", "SQLite of another kind"])
def test_track_links_of_a_file_that_is_no_inbox_is_not_advised_to_be_served(
    kind: str, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A contacts CSV or another SQLite file given to --track-links: exit 4 naming it, left
    as it was, and not advised to `replies serve` it (that would refuse it too: said
    "serve it first: smskit replies serve --path contacts.csv")."""
    path = tmp_path / "contacts.csv"
    if kind == "CSV":
        path.write_text("phone_number\n+33612345678\n")
    else:
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE t (a)")
    before = path.read_bytes()
    result = _send_tracked(fresh_sandbox, path)
    assert result.exit_code == EXIT_INPUT, result.stderr
    assert f"--track-links {path}: " in result.stderr and "not an inbox file" in result.stderr
    assert "serve it first" not in result.stderr
    assert path.read_bytes() == before
    assert fresh_sandbox.sent().empty
