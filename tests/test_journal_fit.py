"""Whether a journal can take a campaign is decided once, in the library
(``campaigns.send``): the send's own adoption of its journal and the CLI's check before
it asks to confirm read the same rule, against the sandbox over real HTTP."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

import smskit
from smskit.campaigns.campaign import journal_check
from smskit.campaigns.send import JournalFit
from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT
from smskit.errors import ConfigurationError
from smskit.sandbox import Sandbox

TEXT = "Alerte {first_name}: disque plein"
NUMBERS = ["+33612345678", "+33698765432"]


def _campaign(client: smskit.Client, path: Path, *, names: tuple[str, str] = ("Ana", "Bo"),
              text: str = TEXT, name: str = "alert") -> smskit.Campaign:  # fmt: skip
    frame = pd.DataFrame({"phone_number": NUMBERS, "first_name": list(names)})
    return smskit.Campaign(client, frame, text=text, sender="Ops", name=name, purpose="alert",
                           journal=path)  # fmt: skip


def test_a_journal_fits_free_then_complete_then_refuses_other_campaigns(
    client: smskit.Client, tmp_path: Path
) -> None:
    """No file: free. Sent: complete, naming the campaign. Another text under the same name:
    other content; another name: other name (its held name given for the message)."""
    path = tmp_path / "a.journal.sqlite"
    campaign = _campaign(client, path)
    assert journal_check(campaign) == journal_check(campaign, path)
    assert (journal_check(campaign).fit, journal_check(campaign).held_name) == (
        JournalFit.FREE, None,
    )  # fmt: skip
    campaign.send()
    check = journal_check(campaign)
    assert (check.fit, check.held_name, check.path) == (JournalFit.COMPLETE, "alert", path)
    assert journal_check(_campaign(client, path, text="Autre {first_name}")).fit == (
        JournalFit.OTHER_CONTENT
    )
    other = journal_check(_campaign(client, path, name="other"))
    assert (other.fit, other.held_name) == (JournalFit.OTHER_NAME, "alert")


def test_other_field_values_for_the_same_numbers_are_another_campaign(
    client: smskit.Client, tmp_path: Path
) -> None:
    """Same name, text and numbers, other first names: what the send would refuse (its
    journal holds another campaign) is what the check says, before anything is sent."""
    path = tmp_path / "a.journal.sqlite"
    _campaign(client, path).send()
    renamed = _campaign(client, path, names=("Eve", "Bo"))
    assert journal_check(renamed).fit is JournalFit.OTHER_CONTENT
    with pytest.raises(ConfigurationError, match="holds another campaign"):
        renamed.send()


def test_a_file_that_is_no_journal_is_refused_about_that_file(
    client: smskit.Client, tmp_path: Path
) -> None:
    """A CSV given as the journal: ConfigurationError naming it, nothing sent."""
    path = tmp_path / "numbers.csv"
    path.write_text("phone_number\n+33612345678\n")
    with pytest.raises(ConfigurationError):
        journal_check(_campaign(client, path))


def test_the_cli_refuses_other_first_names_before_asking_to_confirm(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """``smskit send --csv`` with the same --name and numbers but other first names: exit 4
    naming --name, before the estimate (the old check compared numbers only and answered
    "already sent", exit 9, for a campaign never sent); nothing more is sent."""
    env = {
        "SMSKIT_BASE_URL": fresh_sandbox.url,
        "SMSKIT_API_LOGIN": fresh_sandbox.login,
        "SMSKIT_API_KEY": fresh_sandbox.api_key,
        "SMSKIT_NOW": "2026-03-03T10:00:00+01:00",
    }
    journal = str(tmp_path / "j.journal.sqlite")

    def send(first_names: tuple[str, str]) -> Result:
        csv = tmp_path / "to.csv"
        csv.write_text(
            "phone_number,first_name\n"
            + "".join(f"{n},{f}\n" for n, f in zip(NUMBERS, first_names, strict=True))
        )
        args = [
            "send",
            "--text",
            TEXT,
            "--sender",
            "Ops",
            "--csv",
            str(csv),
            "--purpose",
            "alert",
            "--name",
            "alert",
            "--journal",
            journal,
            "--yes",
        ]
        return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)  # fmt: skip

    assert send(("Ana", "Bo")).exit_code == 0
    refused = send(("Eve", "Bo"))
    assert refused.exit_code == EXIT_INPUT
    assert "another text, sender, options or recipients" in refused.stderr
    assert "Cost" not in refused.stdout
    assert len(fresh_sandbox.sent()) == 2
