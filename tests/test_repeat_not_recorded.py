"""A send that went out but cannot be recorded in the repeat guard's log (another sender keeps
it locked past the wait, or a line of it became unreadable during the send) returns its
result with a RepeatNotRecordedWarning, never an error hiding the SMS sent; the journal still
keeps that campaign from going out twice; the CLI says it on stderr and exits as for the send."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

import smskit
from smskit.campaigns import RepeatNotRecordedWarning
from smskit.campaigns.sending import repeats
from smskit.campaigns.sending.lease import LockFile
from smskit.cli import cli
from smskit.sandbox import Sandbox

TEXT = "Alerte: maintenance ce soir. STOP au 36173"
NUMBERS = ["+33612345678", "+33612345679"]
NOW = datetime(2026, 3, 3, 10, 0, tzinfo=UTC)


def campaign(client: smskit.Client) -> smskit.Campaign:
    return smskit.Campaign(client, NUMBERS, text=TEXT, sender="Ops", purpose="alert",
                           clock=lambda: NOW, repeat_window=timedelta(minutes=10))  # fmt: skip


class DuringTheSend(httpx.MockTransport):
    """Forwards every request to the sandbox; runs ``act`` once, as the SMS send goes out."""

    def __init__(self, act: object) -> None:
        self.act = act
        self.real = httpx.Client(trust_env=False)
        super().__init__(self.forward)

    def forward(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        ours = request.url.path.endswith("/sms-campaign/send") and b"Alerte" in body
        if ours and self.act is not None:  # the campaign's send, not a destination probe
            act, self.act = self.act, None
            act()  # type: ignore[operator]
        sent = httpx.Request(request.method, request.url, headers=request.headers, content=body)
        answer = self.real.send(sent)
        return httpx.Response(answer.status_code, headers=answer.headers, content=answer.content)


def log_of(user_dirs: Path) -> Path:
    return user_dirs / "data" / "smskit" / "cli-sends.jsonl"


def test_a_log_locked_past_the_wait_after_the_send_gives_the_result_and_a_warning(
    fresh_sandbox: Sandbox, tmp_path: Path, user_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another sender takes the log's lock as the SMS go out and keeps it: the send returns
    its complete result and warns, naming the journal; the SMS went out once; resuming the
    journal sends nothing again."""
    monkeypatch.setattr(repeats, "_WAIT_S", 0.2)  # the wait itself is not what is tested
    log = log_of(user_dirs)
    log.parent.mkdir(parents=True, exist_ok=True)
    holder = LockFile(str(log.with_name(log.name + ".lock")))
    journal = tmp_path / "a.sqlite"
    try:
        transport = DuringTheSend(lambda: holder.take())
        with smskit.Client(sandbox=fresh_sandbox, transport=transport) as client:
            with pytest.warns(RepeatNotRecordedWarning) as told:
                result = campaign(client).send(progress=False, journal=journal)
            assert result.complete and len(result.to_frame()) == 2
            message = str(told[0].message)
            assert str(journal) in message and "not recorded for the repeat guard" in message
            assert "locked" in message
            assert len(fresh_sandbox.sent()) == 2
            again = smskit.Campaign.resume(journal, client, progress=False)
            assert again.complete and len(fresh_sandbox.sent()) == 2
        transport.real.close()
    finally:
        holder.let_go(remove=False)
    assert not log.exists()  # nothing recorded: the warning said so


def test_a_log_line_damaged_during_the_send_gives_the_result_and_a_warning(
    fresh_sandbox: Sandbox, tmp_path: Path, user_dirs: Path
) -> None:
    """A line of the log becomes unreadable while the SMS go out: the result is returned with
    a warning naming the file and line; the damaged log is left as it is."""
    log = log_of(user_dirs)
    log.parent.mkdir(parents=True, exist_ok=True)
    transport = DuringTheSend(lambda: log.write_bytes(b'{"at": "yesterday"\n'))
    with (
        smskit.Client(sandbox=fresh_sandbox, transport=transport) as client,
        pytest.warns(RepeatNotRecordedWarning, match=f"{log}:1") as told,
    ):
        result = campaign(client).send(progress=False, journal=tmp_path / "a.sqlite")
    transport.real.close()
    assert result.complete and len(fresh_sandbox.sent()) == 2
    assert "this send was made but is not recorded" in str(told[0].message)
    assert log.read_bytes() == b'{"at": "yesterday"\n'


def test_the_cli_says_the_send_is_not_recorded_on_stderr_and_exits_0(
    fresh_sandbox: Sandbox, user_dirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """smskit send while another process keeps the log locked: Sent is printed, one warning
    line on stderr, exit 0 (the send is complete), the SMS out once."""
    monkeypatch.setattr(repeats, "_WAIT_S", 0.2)
    log = log_of(user_dirs)
    log.parent.mkdir(parents=True, exist_ok=True)
    holder = LockFile(str(log.with_name(log.name + ".lock")))
    assert holder.take()
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": fresh_sandbox.api_key,
           "SMSKIT_NOW": "2026-03-03T10:00:00+01:00"}  # fmt: skip
    args = ["send", "--text", "Alerte serveur: disque plein", "--sender", "Ops",
            "--to", "+33612345678", "--purpose", "alert", "--yes"]  # fmt: skip
    try:
        done = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    finally:
        holder.let_go(remove=False)
    assert done.exit_code == 0, done.stderr
    assert "Sent" in done.stdout
    warned = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warned) == 1 and "not recorded for the repeat guard" in warned[0]
    assert "Traceback" not in done.stderr
    assert len(fresh_sandbox.sent()) == 1
