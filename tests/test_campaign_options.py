"""The campaign options, declared once on CampaignSpec, reach every front end: each declared
option given to smskit.Campaign, smskit.dask.Campaign, Experiment, Composer and `smskit send`
(its generated flag, or the CLI's own value) is journaled with the same value, over real
HTTP; the typed keyword options, the CLI's flags and its error names follow the declaration.
A new option declared only on the spec is walked here too."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, get_type_hints

import click
import dask.dataframe as dd
import pandas as pd
import pytest

import smskit
import smskit.dask
from smskit.campaigns.planning.plan import SEND_OPTIONS
from smskit.campaigns.planning.spec import (
    CAMPAIGN_OPTIONS,
    CampaignOption,
    CampaignOptions,
    CampaignSpec,
)
from smskit.campaigns.sending.journal import Journal
from smskit.cli.main import OPTION_OF_FIELD, main
from smskit.cli.send import send as send_command
from smskit.errors import RepeatedSend, ValidationError
from smskit.rules.caps import ENV_FREQUENCY_CAP
from smskit.sandbox import Sandbox
from smskit.views.composer import Composer

SEND_AT = "2030-06-04T10:00:00+02:00"  # a Tuesday morning: inside French marketing hours
TEXTS = {"wholesale": "Promo -20% ce week-end. STOP au 36173", "alert": "Votre colis arrive."}
NUMBERS = [f"+3361{i:07d}" for i in range(4)]
FRONT_ENDS = ("pandas", "dask", "experiment", "composer", "cli")


def purpose_for(declared: CampaignOption, value: Any) -> str:
    """The first purpose the option's example is allowed for (a cap is marketing's, sending
    to opted-out numbers a transactional send's)."""
    for purpose in ("wholesale", "alert"):
        try:
            CampaignSpec.of(TEXTS[purpose], "Shop", purpose=purpose, **{declared.name: value})
        except ValidationError:
            continue
        return purpose
    raise AssertionError(f"{declared.name}={declared.example!r} is refused for every purpose")


def journaled(path: Path) -> dict[str, Any]:
    """The campaign options the journal at ``path`` records."""
    with Journal(path) as journal:
        record = journal.record()
    assert record is not None and record.campaign_options is not None
    return dict(record.campaign_options)


def sent_by(
    front_end: str, given: dict[str, Any], purpose: str, tmp_path: Path, client: smskit.Client
) -> list[Path]:
    """Send NUMBERS through ``front_end`` with the campaign options ``given``; the journals."""
    text, path = TEXTS[purpose], tmp_path / "j.sqlite"
    common: dict[str, Any] = {"sender": "Shop", "purpose": purpose, "send_at": SEND_AT}
    if front_end == "pandas":
        smskit.Campaign(client, NUMBERS, text=text, **common, **given).send(
            progress=False, journal=path
        )
    elif front_end == "dask":
        frame = dd.from_pandas(pd.DataFrame({"phone_number": NUMBERS}), npartitions=2)
        smskit.dask.Campaign(client, frame, text=text, **common, **given).send(
            progress=False, journal=path
        )
    elif front_end == "experiment":
        variants = {"A": text, "B": f"Derniers jours. {text}"}
        experiment = smskit.Experiment(
            client, NUMBERS, variants=variants, name="options", seed=1, directory=tmp_path,
            **common, **given,
        )  # fmt: skip
        experiment.send(progress=False)
        return [experiment.journal(arm) for arm in variants]
    elif front_end == "composer":
        Composer(client, NUMBERS, text=text, journal=path, debounce=0, **common, **given).send()
    return [path]


def sent_by_cli(
    declared: CampaignOption, purpose: str, tmp_path: Path, sandbox: Sandbox, monkeypatch: Any
) -> list[Path]:
    """`smskit send` with the option's flag and example (none when it has no flag)."""
    monkeypatch.setenv("SMSKIT_BASE_URL", sandbox.url)
    monkeypatch.setenv("SMSKIT_API_LOGIN", sandbox.login)
    monkeypatch.setenv("SMSKIT_API_KEY", sandbox.api_key)
    path = tmp_path / "j.sqlite"
    flag: list[str] = []
    if declared.flag is not None:
        flag = [declared.flag] if declared.parse is None else [declared.flag, declared.example]
    numbers = [part for number in NUMBERS for part in ("--to", number)]
    argv = [
        "send", "--text", TEXTS[purpose], "--sender", "Shop", *numbers, "--purpose", purpose,
        "--send-at", SEND_AT, "--journal", str(path), "--yes", *flag,
    ]  # fmt: skip
    assert main(argv) == 0
    return [path]


@pytest.mark.parametrize("front_end", FRONT_ENDS)
@pytest.mark.parametrize("declared", CAMPAIGN_OPTIONS, ids=lambda o: o.name)
def test_every_declared_option_is_journaled_by_every_front_end(
    declared: CampaignOption,
    front_end: str,
    fresh_sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """Each option's example, given to a front end (the CLI: its flag, or the CLI's own value
    for an option without one), is in the journaled record as the spec journals it, and
    differs from what the default journals (so a front end that dropped it would fail)."""
    monkeypatch.delenv(ENV_FREQUENCY_CAP, raising=False)
    value = declared.read(declared.example)
    purpose = purpose_for(declared, value)
    base = {"purpose": purpose, "send_at": SEND_AT}
    if front_end == "cli" and declared.flag is None:
        value = declared.cli_value
    spec = CampaignSpec.of(TEXTS[purpose], "Shop", **base, **{declared.name: value})
    expected = spec.journaled_options()[declared.name]
    default = CampaignSpec.of(TEXTS[purpose], "Shop", **base).journaled_options()[declared.name]
    assert expected != default
    if front_end == "dask":
        request.getfixturevalue("dask_cluster")
    if front_end == "cli":
        paths = sent_by_cli(declared, purpose, tmp_path, fresh_sandbox, monkeypatch)
    else:
        with smskit.Client(sandbox=fresh_sandbox) as client:
            paths = sent_by(front_end, {declared.name: value}, purpose, tmp_path, client)
    for path in paths:
        assert journaled(path)[declared.name] == expected


def test_the_typed_keyword_options_are_the_send_options_and_the_declared_ones() -> None:
    """CampaignOptions (what mypy checks **options against) names the send endpoint's options
    then every declared option, each with its spec field's type."""
    hints = get_type_hints(CampaignOptions)
    names = [o.name for o in CAMPAIGN_OPTIONS]
    assert list(hints) == [*SEND_OPTIONS, *names]
    fields = get_type_hints(CampaignSpec)
    assert {n: hints[n] for n in names} == {n: fields[n] for n in names}


@pytest.mark.parametrize("declared", CAMPAIGN_OPTIONS, ids=lambda o: o.name)
def test_the_cli_flag_help_and_error_name_come_from_the_declaration(
    declared: CampaignOption,
) -> None:
    """`smskit send` has each declared flag with its help; an error naming the field (or the
    variable of its account default) names the flag (or the variable)."""
    if declared.flag is None:
        assert all(declared.name not in p.name for p in send_command.params if p.name)
        return
    option = next(p for p in send_command.params if declared.flag in p.opts)
    assert isinstance(option, click.Option) and option.help == declared.help
    assert option.name == declared.name and OPTION_OF_FIELD[declared.name] == declared.flag
    if declared.env is not None:
        assert OPTION_OF_FIELD[declared.env] == declared.env


def test_the_spec_tells_campaign_options_from_send_options() -> None:
    """The spec a front end makes (CampaignSpec.of) tells campaign options from send options,
    and refuses a name that is neither as an unknown send option, naming every campaign
    option too and the closest name to a typo."""
    spec = CampaignSpec.of(TEXTS["alert"], "Shop", purpose="alert", include_opted_out=True)
    assert spec.include_opted_out is True and dict(spec.options) == {"purpose": "alert"}
    with pytest.raises(ValidationError) as caught:
        CampaignSpec.of(TEXTS["alert"], "Shop", frequency_capp="2/7D")  # type: ignore[call-arg]
    assert caught.value.field == "frequency_capp"
    assert all(o.name in caught.value.rule for o in CAMPAIGN_OPTIONS)
    assert caught.value.rule.endswith("(did you mean frequency_cap?)")


def test_an_experiment_runs_its_arms_repeat_guard(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    """repeat_window on an Experiment guards each arm's send: the same experiment (name,
    texts, recipients, seed) made again elsewhere within the window is refused before any
    SMS leaves; without the window it is not refused (the gateway's request ids keep it
    from sending twice)."""
    variants = {"A": TEXTS["wholesale"], "B": f"Derniers jours. {TEXTS['wholesale']}"}
    with smskit.Client(sandbox=fresh_sandbox) as client:

        def made(where: str, window: timedelta | None) -> smskit.Experiment:
            return smskit.Experiment(
                client, NUMBERS, variants=variants, sender="Shop", name="ab", seed=1,
                directory=tmp_path / where, purpose="wholesale", send_at=SEND_AT,
                repeat_window=window,
            )  # fmt: skip

        made("one", timedelta(minutes=30)).send(progress=False)
        with pytest.raises(RepeatedSend):
            made("two", timedelta(minutes=30)).send(progress=False)
        assert len(fresh_sandbox.sent()) == len(NUMBERS)
        result = made("three", None).send(progress=False)
        assert set(result.arms) == set(variants)


@pytest.mark.parametrize(
    "declared", [o for o in CAMPAIGN_OPTIONS if o.env is not None], ids=lambda o: o.name
)
def test_an_option_not_given_takes_its_account_default_from_the_environment(
    declared: CampaignOption, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An option with an account default, not given, applies and journals the value its
    variable holds, as if given; a variable that does not read is refused naming it."""
    value = declared.read(declared.example)
    purpose = purpose_for(declared, value)
    given = CampaignSpec.of(TEXTS[purpose], "Shop", purpose=purpose, **{declared.name: value})
    assert declared.env is not None
    monkeypatch.setenv(declared.env, declared.example)
    defaulted = CampaignSpec.of(TEXTS[purpose], "Shop", purpose=purpose)
    assert defaulted.applied(declared.name) == given.applied(declared.name)
    assert defaulted.journaled_options() == given.journaled_options()
    monkeypatch.setenv(declared.env, "not a value")
    with pytest.raises(ValidationError) as caught:
        CampaignSpec.of(TEXTS[purpose], "Shop", purpose=purpose)
    assert caught.value.field == declared.env
