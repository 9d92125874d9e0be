"""A holdout that holds out every sendable recipient (``holdout=5`` of 5, a share of 0.999)
is a blocking preflight finding, ``holdout_takes_all``, said before any send is tried: by
the report (pandas and Dask), the Composer's panel and ``smskit send --dry-run``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli_holdout import runner

import smskit
from smskit.dask import Campaign as DaskCampaign
from smskit.sandbox import Sandbox
from smskit.views.composer import Composer

TEXT = "Alerte: maintenance ce soir. STOP au 36173"


def numbers(count: int) -> list[str]:
    return [f"+3361{i:07d}" for i in range(count)]


def codes(report: Any) -> list[str]:
    return [finding.code for finding in report.blocking_findings()]


@settings(max_examples=40, deadline=None)
@given(sendable=st.integers(1, 12), count=st.integers(1, 15), invalid=st.integers(0, 3))
def test_a_count_holds_out_everyone_exactly_when_it_reaches_the_sendable_recipients(
    sendable: int, count: int, invalid: int
) -> None:
    """A count of at least the sendable recipients (those left after the other exclusions:
    unreadable numbers here) is refused by preflight, naming the holdout; a smaller one is
    not a finding and leaves recipients to send."""
    given_numbers = numbers(sendable) + ["hello"] * invalid
    campaign = smskit.Campaign(None, given_numbers, text=TEXT, sender="Ops", purpose="alert",
                               holdout=count)  # fmt: skip
    report = campaign.preflight(offline=True)
    if count >= sendable:
        assert codes(report) == ["holdout_takes_all"]
        assert not report.ok and report.to_send == 0
        (error,) = report.blocking()
        assert error.field == "holdout" and f"all {sendable}" in str(error)
        with pytest.raises(smskit.ValidationError, match="holds out every sendable recipient"):
            report.raise_for_errors()
    else:
        assert codes(report) == [] and report.ok and report.to_send == sendable - count


@pytest.mark.parametrize(("share", "everyone"), [(0.999, True), (0.95, True), (0.8, False)])
def test_a_share_that_rounds_to_everyone_is_refused(share: float, everyone: bool) -> None:
    """5 sendable: 0.999 and 0.95 round to 5 held out (refused); 0.8 holds out 4 (sent to 1)."""
    report = smskit.Campaign(None, numbers(5), text=TEXT, sender="Ops", purpose="alert",
                             holdout=share).preflight(offline=True)  # fmt: skip
    assert codes(report) == (["holdout_takes_all"] if everyone else [])
    assert report.ok is not everyone


def test_nothing_sendable_without_a_holdout_keeps_the_general_error() -> None:
    """Every number unreadable: not the holdout's doing, the general 'nothing to send'."""
    report = smskit.Campaign(None, ["hello", "bad"], text=TEXT, sender="Ops", purpose="alert",
                             holdout=1).preflight(offline=True)  # fmt: skip
    assert codes(report) == []
    assert [error.field for error in report.blocking()] == ["recipients"]


def test_the_dask_report_says_it_too(dask_cluster: Any) -> None:
    frame = dd.from_pandas(pd.DataFrame({"phone_number": numbers(5)}), npartitions=2)
    campaign = DaskCampaign(None, frame, text=TEXT, sender="Ops", purpose="alert", holdout=5)
    report = campaign.preflight(offline=True)
    assert codes(report) == ["holdout_takes_all"] and not report.ok


def test_the_composer_blocks_the_send_naming_the_holdout(client: smskit.Client) -> None:
    composer = Composer(client, pd.DataFrame({"phone_number": numbers(5)}), text=TEXT,
                        sender="Ops", purpose="alert", debounce=0, holdout=5)  # fmt: skip
    check = next(c for c in composer.panel.checks if c.name == "holdout")
    assert not check.ok and "holds out every sendable recipient (all 5)" in check.message
    assert not composer.panel.ok


def test_the_dry_run_refuses_naming_the_holdout(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    run = runner(fresh_sandbox, tmp_path)
    args = ["send", "--text", TEXT, "--sender", "Ops", "--purpose", "alert", "--holdout", "5"]
    for number in numbers(5):
        args += ["--to", number]
    dry = run(*args, "--dry-run")
    assert dry.returncode != 0
    assert "nothing to send: holdout holds out every sendable recipient (all 5)" in dry.stderr
    assert fresh_sandbox.sent().empty
