"""``smskit send --dry-run`` is for checking and costing: outside the marketing hours it
still prints the cost and says when the send would be allowed (exit 0, nothing sent), while
the send itself stays refused (exit 4)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from smskit.cli import cli
from smskit.cli.output import EXIT_INPUT
from smskit.sandbox import Sandbox

PROMO = ("send", "--text", "Promo -20% STOP au 36173", "--sender", "Shop",
         "--to", "+33612345678", "--to", "+33612345679")  # fmt: skip


def test_dry_run_outside_hours_shows_the_cost_and_when_it_would_be_allowed(
    fresh_sandbox: Sandbox,
) -> None:
    """At 23:00 in Paris: the dry run exits 0 with the cost (2 SMS) and the next permitted
    moment (Wed 08:00), in text and --json; the send is refused (4); nothing is sent."""
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": fresh_sandbox.api_key,
           "SMSKIT_NOW": "2026-03-03T23:00:00+01:00"}  # fmt: skip
    text = CliRunner().invoke(cli, [*PROMO, "--dry-run"], env=env)
    assert text.exit_code == 0, text.stderr
    assert "Cost (the gateway's simulation):" in text.stdout
    assert "the send would be allowed from Wed 2026-03-04 08:00" in text.stdout
    scripted = CliRunner().invoke(cli, [*PROMO, "--dry-run", "--json"], env=env)
    document = json.loads(scripted.stdout)
    assert scripted.exit_code == 0
    assert document["estimate"]["sms"] == 2 and document["preflight"]["to_send"] == 2
    assert document["allowed_from"].startswith("2026-03-04T08:00")
    refused = CliRunner().invoke(cli, [*PROMO, "--yes"], env=env)
    assert refused.exit_code == EXIT_INPUT and "--at-next-permitted" in refused.stderr
    assert fresh_sandbox.sent().empty


def test_dry_run_counts_warnings_of_sent_rows_and_opens_after_send_at(
    fresh_sandbox: Sandbox,
) -> None:
    """A dry run for Sunday 23:30 (--send-at) on a file with a duplicate row: the hours
    warning names only the rows that would be sent (the duplicate gets no message), the
    summary's with_warning agrees, and the send would be allowed from Monday 08:00 (after
    --send-at, not from the clock's Saturday)."""
    env = {"SMSKIT_BASE_URL": fresh_sandbox.url, "SMSKIT_API_LOGIN": fresh_sandbox.login,
           "SMSKIT_API_KEY": fresh_sandbox.api_key,
           "SMSKIT_NOW": "2026-11-28T05:00:00+01:00"}  # fmt: skip
    args = ("send", "--text", "Promo -20% STOP au 36173", "--sender", "Shop",
            "--to", "+33612345678", "--to", "+33612345679", "--to", "06 12 34 56 78",
            "--send-at", "2026-11-29T23:30:00+01:00", "--dry-run")  # fmt: skip
    text = CliRunner().invoke(cli, args, env=env)
    assert text.exit_code == 0, text.stderr
    assert "Warning: 2 recipient(s): outside marketing hours (FR) (row 0, 1)" in text.stdout
    assert "Excluded: 1 recipient(s): duplicate" in text.stdout
    assert "the send would be allowed from Mon 2026-11-30 08:00" in text.stdout
    document = json.loads(CliRunner().invoke(cli, [*args, "--json"], env=env).stdout)
    assert document["preflight"]["with_warning"] == 2 == document["preflight"]["to_send"]
    assert document["allowed_from"].startswith("2026-11-30T08:00")
