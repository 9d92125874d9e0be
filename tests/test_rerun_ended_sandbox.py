"""A journal of an embedded sandbox that has ended is finished history: re-running the cell
that sent it starts a new campaign beside it, and a resume of it refuses in one line; the
README's campaign snippet runs twice in two new processes."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import warnings
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import smskit
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.sending.journal_file import numbered_journal
from smskit.campaigns.sending.reconnect import journal_for_send
from smskit.sandbox import Sandbox

REPO = Path(__file__).resolve().parent.parent
ENV = ("SMSKIT_API_LOGIN", "SMSKIT_API_KEY", "SMSKIT_BASE_URL")
TEXT = "Promo -20% ce week-end. STOP au 36173"
MONDAY_10H = "2031-06-03T10:00:00+02:00"


def readme_snippets() -> tuple[str, str]:
    """README's Python blocks, up to the one that sends the campaign, as one script (the
    first makes ``client``), and the campaign's name there."""
    blocks = re.findall(r"^```python\n(.*?)^```", (REPO / "README.md").read_text(), re.M | re.S)
    sending = next(at for at, block in enumerate(blocks) if "campaign.send(" in block)
    (name,) = re.findall(r'smskit\.Campaign\(.*?name="([^"]+)"', "\n".join(blocks), re.S)
    return "\n".join(blocks[: sending + 1]), name


def run_script(code: str, home: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new Python process from the checkout, with no SMSKIT_* set."""
    script = tmp_path / "snippet.py"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    env |= {"XDG_DATA_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache")}
    return subprocess.run(
        [sys.executable, str(script)], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=240, check=False,
    )  # fmt: skip


def test_the_readme_campaign_snippet_runs_twice_in_two_new_processes(
    tmp_path: Path, user_dirs: Path
) -> None:
    """Run again in a new process, README's loop up to the send works: the first journal (its
    embedded sandbox gone) is kept, the second send is a new campaign in <name>-2, said once."""
    code, name = readme_snippets()
    first = run_script(code, user_dirs, tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    journals = user_dirs / "data" / "smskit" / "campaigns"
    kept = (journals / f"{name}.journal.sqlite").read_bytes()
    second = run_script(code, user_dirs, tmp_path)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "Traceback" not in second.stderr
    assert "has ended" in second.stderr and f"{name}-2.journal.sqlite" in second.stderr
    assert (journals / f"{name}.journal.sqlite").read_bytes() == kept  # history untouched
    assert smskit.CampaignResult.load(journals / f"{name}-2.journal.sqlite").complete


def test_resume_of_an_ended_sandbox_journal_refuses_in_one_line_without_a_chained_loop_error(
    tmp_path: Path, user_dirs: Path
) -> None:
    """In a new process, Campaign.resume of a journal whose embedded sandbox ended raises
    SandboxEndedError, one line saying there is nothing to resume, nothing chained."""
    path = tmp_path / "j.journal.sqlite"
    send = (
        "import smskit\n"
        f"smskit.Campaign(smskit.Client(), ['+33612345678'], text={TEXT!r}, sender='Shop',"
        f" send_at={MONDAY_10H!r}).send(progress=False, journal={str(path)!r})\n"
    )
    assert run_script(send, user_dirs, tmp_path).returncode == 0
    resume = f"import smskit\nsmskit.Campaign.resume({str(path)!r}, progress=False)\n"
    run = run_script(resume, user_dirs, tmp_path)
    assert run.returncode == 1
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("smskit.errors.SandboxEndedError: ") and "nothing of it" in last
    assert "no running event loop" not in run.stderr
    assert "During handling of the above exception" not in run.stderr
    assert "Resume it there" not in run.stderr


def test_cli_resume_of_an_ended_sandbox_journal_says_so_in_one_line(
    tmp_path: Path, user_dirs: Path
) -> None:
    """`smskit campaign resume` of an unfinished journal whose embedded sandbox has ended
    (it stopped for credit, then its sandbox stopped): exit 3, one stderr line naming the
    CLI's own commands, the journal unchanged."""
    path = tmp_path / "j.journal.sqlite"
    with Sandbox(seed=0) as gone:
        gone.set_balance(0.01)
        with pytest.warns(smskit.campaigns.IncompleteSendWarning):
            Campaign(smskit.Client(sandbox=gone), ["+33612345678"], text=TEXT, sender="Shop",
                     send_at=MONDAY_10H).send(progress=False, journal=path)  # fmt: skip
    before = path.read_bytes()
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    run = subprocess.run(
        [sys.executable, "-m", "smskit", "--quiet", "campaign", "resume", str(path)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 3, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert "nothing to resume" in line and "smskit campaign status" in line
    assert "Campaign.resume" not in line and "client=" not in line
    assert path.read_bytes() == before


def test_a_send_again_after_the_sandbox_stopped_is_a_new_campaign(tmp_path: Path) -> None:
    """In one process: the campaign's sandbox stopped, the same send again goes through a
    new sandbox into <stem>-2 with a warning; the first journal's bytes are unchanged, and
    a third send (that sandbox running) continues <stem>-2 (complete: nothing sent)."""
    path = tmp_path / "promo.journal.sqlite"
    numbers = [f"+3361234{i:04d}" for i in range(30)]
    with Sandbox(seed=1) as first:
        Campaign(smskit.Client(sandbox=first), numbers, text=TEXT, sender="Shop", name="p",
                 send_at=MONDAY_10H).send(progress=False, journal=path)  # fmt: skip
    kept = path.read_bytes()
    with Sandbox(seed=2) as second:
        campaign = Campaign(smskit.Client(sandbox=second), numbers, text=TEXT, sender="Shop",
                            name="p", send_at=MONDAY_10H)  # fmt: skip
        with pytest.warns(UserWarning, match=r"has ended.*promo-2\.journal\.sqlite"):
            result = campaign.send(progress=False, journal=path)
        assert result.journal == tmp_path / "promo-2.journal.sqlite" and result.complete
        assert len(second.sent()) == 30
        with pytest.warns(UserWarning, match="has ended"):
            again = campaign.send(progress=False, journal=path)
        assert again.journal == result.journal and len(second.sent()) == 30
    assert path.read_bytes() == kept


def test_only_an_ended_embedded_sandbox_journal_is_passed_over(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """A journal of a gateway reached by URL (not an in-process sandbox), of a sandbox still
    running, a free path, an empty file, a file that is no journal: the send uses it as
    asked (and its own opening takes or refuses it)."""
    numbers = ["+33612345678"]
    by_url = tmp_path / "url.sqlite"
    client = smskit.Client(fresh_sandbox.login, fresh_sandbox.api_key, fresh_sandbox.url)
    Campaign(client, numbers, text=TEXT, sender="Shop", send_at=MONDAY_10H).send(
        progress=False, journal=by_url
    )
    running = tmp_path / "running.sqlite"
    Campaign(smskit.Client(sandbox=fresh_sandbox), numbers, text=TEXT, sender="Shop",
             send_at=MONDAY_10H).send(progress=False, journal=running)  # fmt: skip
    empty = tmp_path / "empty.sqlite"
    empty.touch()  # e.g. made by another process's sqlite3.connect before it initialises it
    not_a_journal = tmp_path / "notes.sqlite"
    not_a_journal.write_text("not SQLite")
    for path in (by_url, running, tmp_path / "free.sqlite", empty, not_a_journal):
        assert journal_for_send(path) == (path, None)
    with sqlite3.connect(running) as db:
        db.execute(
            "UPDATE meta SET value = json_set(value, '$.base_url', 'http://127.0.0.1:9') "
            "WHERE key = 'gateway'"
        )
    assert journal_for_send(running) == (numbered_journal(running, 2), running)
    assert numbered_journal(Path("/x/a.journal.sqlite"), 3) == Path("/x/a-3.journal.sqlite")


def test_an_unnamed_campaign_sent_again_is_journaled_under_its_whole_name(
    tmp_path: Path, user_dirs: Path
) -> None:
    """An unnamed campaign's name holds a dot (its creation time, `...T100000.000000Z-...`):
    sent again after its sandbox stopped, it is journaled in `<that whole name>-2`, as the
    warning says, never with the number put inside the time."""
    numbers = [f"+3361234{i:04d}" for i in range(5)]
    clock = lambda: datetime(2031, 6, 3, 8, tzinfo=UTC)  # noqa: E731
    results = []
    for seed in (1, 2):
        with Sandbox(seed=seed) as box:
            campaign = Campaign(smskit.Client(sandbox=box), numbers, text=TEXT, sender="Shop",
                                clock=clock)  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results.append(campaign.send(progress=False))
    first, second = (r.journal for r in results)
    assert "." in campaign.name and first.name == f"{campaign.name}.journal.sqlite"
    assert second == first.with_name(f"{campaign.name}-2.journal.sqlite")


@given(
    name=st.text(alphabet="ab.-_0Z", min_size=1, max_size=12).filter(lambda n: n[0] != "."),
    number=st.integers(2, 99),
)
def test_a_numbered_journal_keeps_the_whole_name(name: str, number: int) -> None:
    """The n-th journal of a campaign named with dots (an experiment's `<name>.<arm>`, a
    dated name) is `<name>-n.journal.sqlite`: the name read back from it is `<name>-n`,
    whatever dots the name holds; another file keeps its last suffix."""
    path = Path("/x") / f"{name}.journal.sqlite"
    assert numbered_journal(path, number).name == f"{name}-{number}.journal.sqlite"
    assert numbered_journal(Path(f"/x/{name}.db"), number).name == f"{name}-{number}.db"


def test_a_refused_cron_repeat_on_the_embedded_sandbox_claims_no_new_campaign(
    tmp_path: Path, user_dirs: Path
) -> None:
    """`smskit send --name N` run twice by cron on the embedded sandbox: the second run is
    refused (exit 9) in one stderr line, without saying "this send is a new campaign" nor
    leaving an N-2 journal; with --again the new campaign is said and journaled in N-2."""
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    env |= {"XDG_DATA_HOME": str(user_dirs / "data"), "XDG_CACHE_HOME": str(user_dirs / "cache")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    args = [sys.executable, "-m", "smskit", "send", "--text", "Alerte: disque plein",
            "--sender", "Ops", "--to", "+33612345678", "--purpose", "alert", "--yes",
            "--name", "disk"]  # fmt: skip

    def cron(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*args, *extra], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120, check=False)  # fmt: skip

    assert cron().returncode == 0
    journals = user_dirs / "data" / "smskit" / "campaigns"
    repeat = cron()
    assert repeat.returncode == 9 and "Traceback" not in repeat.stderr
    lines = repeat.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing sent" in lines[0], repeat.stderr
    assert "new campaign" not in repeat.stderr
    assert not (journals / "disk-2.journal.sqlite").exists()
    again = cron("--again")
    assert again.returncode == 0, again.stderr[-2000:]
    assert "new campaign" in again.stderr and "disk-2.journal.sqlite" in again.stderr
    assert smskit.CampaignResult.load(journals / "disk-2.journal.sqlite").complete


def test_a_refused_library_repeat_on_the_embedded_sandbox_warns_of_no_new_campaign(
    tmp_path: Path, user_dirs: Path
) -> None:
    """Campaign(..., repeat_window="10min").send() run again in a new process: RepeatedSend,
    no warning that "this send is a new campaign" and no N-2 journal left (nothing was sent)."""
    code = (
        "import warnings, smskit\n"
        "c = smskit.Campaign(smskit.Client(), ['+33612345678'], text='Alerte: disque plein',\n"
        "    sender='Ops', name='disk', purpose='alert', repeat_window='10min')\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    try:\n"
        "        c.send(progress=False)\n"
        "    except smskit.errors.RepeatedSend:\n"
        "        print('REFUSED')\n"
        "print(any('new campaign' in str(w.message) for w in seen))\n"
    )
    assert run_script(code, user_dirs, tmp_path).returncode == 0
    second = run_script(code, user_dirs, tmp_path)
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout.split()[-2:] == ["REFUSED", "False"], second.stdout
    journals = user_dirs / "data" / "smskit" / "campaigns"
    assert (journals / "disk.journal.sqlite").exists()
    assert not (journals / "disk-2.journal.sqlite").exists()
