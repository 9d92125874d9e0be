"""A float is never a phone number, at every public entry point that reads one.

The class (issue 33): ``Campaign``, ``send`` and ``contact.create`` refused a float phone
number while ``bulk_hlr`` and ``OptOuts.add`` read ``33612345678.0`` as a number, and a float
column (what ``pd.read_csv`` makes of digits with blank cells) was read everywhere. One rule
now (:data:`smskit.rules.recipients.RULE_FLOAT`, asked by the one reader): a float, alone, in
a list, a dict, an object column or a float column with NaN, is refused naming the field, the
first float's row and the rule; a NaN before it is a missing number, not the refused row.
Differential: the same recipients with that float given as an int are not refused as floats.
The CLI reads files as text (no float can reach it); its paths are the library's readers.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
import smskit.dask
from smskit.cli import cli
from smskit.errors import ValidationError
from smskit.replies.optouts import OptOutsNotReadWarning
from smskit.rules.recipients import RULE_FLOAT
from smskit.sandbox import Sandbox

TEXT = "Promo -20%. STOP au 36173"
SHAPES = ("single", "list", "dicts", "object column", "float column with NaN")

national = st.integers(600_000_000, 799_999_999)
numbers = st.lists(national.map(lambda n: 33_000_000_000 + n), min_size=1, max_size=4,
                   unique=True)  # fmt: skip
FEW = settings(max_examples=4, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip


def shaped(shape: str, values: list[int], at: int, number: Callable[[int], Any]) -> Any:
    """``values`` in ``shape``: the one at ``at`` given by ``number``, those before it as
    text (NaN in the float column), those after as ``number`` too."""
    given = [f"+{v}" if i < at else number(v) for i, v in enumerate(values)]
    if shape == "single":
        return number(values[0])
    if shape == "list":
        return given
    if shape == "dicts":
        return [{"phone_number": v} for v in given]
    if shape == "object column":
        return pd.DataFrame({"phone_number": pd.Series(given, dtype=object)})
    column = [np.nan if i < at else number(v) for i, v in enumerate(values)]
    return pd.DataFrame({"phone_number": pd.Series(column, dtype="float64" if number is float
                                                   else "Int64")})  # fmt: skip


@pytest.fixture(scope="module")
def client(sandbox: Sandbox) -> Iterator[smskit.Client]:
    """One client on the session's sandbox for the whole module."""
    with smskit.Client(sandbox=sandbox) as client:
        yield client


def entry_points(client: smskit.Client, directory: Path) -> dict[str, Callable[[Any], Any]]:
    """Every public way to hand smskit numbers, each as a call of the recipients alone."""

    def campaign(recipients: Any) -> Any:
        return smskit.Campaign(client, recipients, text=TEXT, sender="Shop").preflight(offline=True)

    def optouts(recipients: Any) -> Any:
        with warnings.catch_warnings():  # a list at a path of its own: said once a path
            warnings.simplefilter("ignore", OptOutsNotReadWarning)
            with smskit.OptOuts(client, path=directory / "o.sqlite") as listed:
                return listed.add(recipients)

    return {
        "Campaign": campaign,
        "send": lambda r: client.sms_campaign.send(
            text="Code 1234", recipients=r, sender="Shop", purpose="alert", simulation_mode=True
        ),
        "contact.create": lambda r: client.contact.create(r),
        "bulk_hlr": lambda r: smskit.bulk_hlr(client, r, progress=False, journal=False),
        "OptOuts.add": optouts,
        "render_all": lambda r: smskit.text.render_all("Code 1234", r),
    }


def refusal(call: Callable[[Any], Any], recipients: Any) -> ValidationError | None:
    """The ValidationError ``call`` raises for ``recipients``, or None."""
    try:
        call(recipients)
    except ValidationError as error:
        return error
    return None


@pytest.mark.parametrize("shape", SHAPES)
@FEW
@given(values=numbers, data=st.data())
def test_a_float_number_is_refused_at_every_entry_point_naming_its_row(
    client: smskit.Client, tmp_path: Path, shape: str, values: list[int], data: st.DataObject
) -> None:
    """Each entry point refuses the first float (not NaN) with the rule, its field and its
    row; the same recipients with integers are not refused as floats."""
    at = 0 if shape == "single" else data.draw(st.integers(0, len(values) - 1), label="at")
    for name, call in entry_points(client, tmp_path).items():
        takes_numbers = name in ("bulk_hlr", "OptOuts.add")  # numbers, not recipients
        if (takes_numbers and shape == "dicts") or (name == "OptOuts.add" and "column" in shape):
            continue
        error = refusal(call, shaped(shape, values, at, float))
        assert error is not None and error.rule == RULE_FLOAT, (name, error)
        assert error.position == at, (name, error)
        field = {"contact.create": "contacts", "bulk_hlr": "numbers", "OptOuts.add": "numbers"}
        expected = field.get(name, "recipients")
        if not takes_numbers or "column" in shape:
            expected += ".phone_number"
        assert error.field == expected, (name, error.field)
        ints = refusal(call, shaped(shape, values, at, int))
        assert ints is None or ints.rule != RULE_FLOAT, (name, ints)


def test_a_float_is_never_in_the_opt_out_list(client: smskit.Client, tmp_path: Path) -> None:
    """`33612345678.0 in listed` is False (a float is never a number, so never listed; `in`
    never raises), where the int it equals is listed."""
    with (
        warnings.catch_warnings(),
        smskit.OptOuts(client, path=tmp_path / "o.sqlite") as listed,
    ):
        warnings.simplefilter("ignore", OptOutsNotReadWarning)
        listed.add(33612345678)
        assert 33612345678 in listed and np.int64(33612345678) in listed
        assert 33612345678.0 not in listed and np.float64(33612345678.0) not in listed


def test_composer_experiment_and_dask_refuse_a_float_column_naming_its_row(
    client: smskit.Client, tmp_path: Path
) -> None:
    """The Composer, an experiment and the Dask campaign and bulk HLR refuse a float column
    at its first float (NaN before it is a missing number) with the rule."""
    frame = pd.DataFrame({"phone_number": [np.nan, 33612345678.0, 33612345679.0]})
    calls: dict[str, Callable[[], Any]] = {
        "Composer": lambda: smskit.Composer(client, frame, text=TEXT, sender="Shop"),
        "Experiment": lambda: smskit.Experiment(
            client,
            frame,
            sender="Shop",
            seed=4,
            directory=tmp_path / "x",
            name="f",
            variants={"A": "A. STOP au 36173", "B": "B. STOP au 36173"},
        ).assignment(),
        "dask.Campaign": lambda: smskit.dask.Campaign(
            client, dd.from_pandas(frame, npartitions=1), text=TEXT, sender="Shop"
        ).preflight(offline=True),
        "dask.bulk_hlr": lambda: smskit.dask.bulk_hlr(
            client,
            dd.from_pandas(frame, npartitions=1)["phone_number"],
            tmp_path / "h",
            progress=False,
        ),
    }
    for name, call in calls.items():
        with pytest.raises(ValidationError) as caught:
            call()
        assert (caught.value.rule, caught.value.position) == (RULE_FLOAT, 1), name


def float_text_paths(
    client: smskit.Client, sandbox: Sandbox, directory: Path
) -> dict[str, Callable[[list[str]], ValidationError | str | None]]:
    """Every path a column of number texts takes, each a call of the texts giving the
    refusal it raises (the CLI: the line it prints when it refuses a float), or None."""

    def csv(texts: list[str]) -> Path:
        path = directory / "numbers.csv"
        pd.DataFrame({"phone_number": texts}).to_csv(path, index=False)
        return path

    def campaign(recipients: Any) -> ValidationError | None:
        return refusal(
            lambda r: smskit.Campaign(client, r, text=TEXT, sender="Shop").preflight(offline=True),
            recipients,
        )

    def dask_campaign(texts: list[str]) -> ValidationError | None:
        frame = dd.from_pandas(pd.DataFrame({"phone_number": texts}), npartitions=1)
        return refusal(
            lambda r: smskit.dask.Campaign(client, r, text=TEXT, sender="Shop").preflight(
                offline=True
            ),
            frame,
        )

    def hlr(recipients: Any) -> ValidationError | None:
        return refusal(
            lambda r: smskit.bulk_hlr(client, r, progress=False, journal=False), recipients
        )

    def optouts_csv(texts: list[str]) -> ValidationError | None:
        with warnings.catch_warnings():  # a list at a path of its own: said once a path
            warnings.simplefilter("ignore", OptOutsNotReadWarning)
            with smskit.OptOuts(client, path=directory / "o.sqlite") as listed:
                return refusal(listed.import_csv, csv(texts))

    def cli_send(texts: list[str]) -> str | None:
        env = {"SMSKIT_BASE_URL": sandbox.url, "SMSKIT_API_LOGIN": sandbox.login,
               "SMSKIT_API_KEY": sandbox.api_key}  # fmt: skip
        args = ["send", "--text", TEXT, "--sender", "Shop", "--csv", str(csv(texts)), "--dry-run"]
        out = CliRunner().invoke(cli, args, env=env)
        refused = out.exit_code != 0 and "a float cannot hold a phone number" in out.output
        return out.output if refused else None

    return {
        "list": campaign,
        "dicts": lambda t: campaign([{"phone_number": v} for v in t]),
        "object column": lambda t: campaign(pd.DataFrame({"phone_number": t}, dtype=object)),
        "Arrow strings": lambda t: campaign(
            pd.DataFrame({"phone_number": pd.Series(t, dtype="string[pyarrow]")})
        ),
        "pyarrow table": lambda t: campaign(pa.table({"phone_number": t})),
        "CSV file": lambda t: campaign(csv(t)),
        "dask.Campaign": dask_campaign,
        "Composer": lambda t: refusal(
            lambda r: smskit.Composer(client, r, text=TEXT, sender="Shop"),
            pd.DataFrame({"phone_number": t}),
        ),
        "bulk_hlr": hlr,
        "bulk_hlr CSV": lambda t: hlr(csv(t)),
        "OptOuts.import_csv": optouts_csv,
        "CLI send --csv": cli_send,
    }


@FEW
@given(values=numbers, data=st.data())
def test_a_float_s_text_is_refused_like_a_float_on_every_path(
    client: smskit.Client, sandbox: Sandbox, tmp_path: Path, values: list[int],
    data: st.DataObject,
) -> None:  # fmt: skip
    """A float's text ("33612345678.0", blanks and a '+' allowed) is refused on every path
    with RULE_FLOAT naming its row (it may have lost a leading 0 or '+': never read as
    digits); the same texts without the ".0" are not refused as floats (differential)."""
    at = data.draw(st.integers(0, len(values) - 1), label="at")
    zeros = data.draw(st.sampled_from([".0", ".00", ".0 "]), label="zeros")
    plus = data.draw(st.sampled_from(["", "+", " "]), label="plus")
    texts = [f"+{v}" for v in values]
    floated = [*texts[:at], f"{plus}{values[at]}{zeros}", *texts[at + 1 :]]
    for name, call in float_text_paths(client, sandbox, tmp_path).items():
        refused = call(floated)
        if isinstance(refused, str):  # the CLI says the rule and the file's line
            assert f"line {at + 2}, phone_number" in refused, (name, refused)
        else:
            assert refused is not None and refused.rule == RULE_FLOAT, (name, refused)
            assert refused.position == at, (name, refused)
            assert refused.field.endswith("phone_number") or refused.field == "numbers", name
        plain = call(texts)
        assert plain is None or (not isinstance(plain, str) and plain.rule != RULE_FLOAT), (
            name,
            plain,
        )


def test_a_float_s_text_after_a_lone_surrogate_is_still_refused_at_its_row() -> None:
    """A column whose text Arrow cannot hold (a lone surrogate at row 1) is read item by item:
    the float's text at row 2 is refused with RULE_FLOAT naming row 2, not a UnicodeEncodeError;
    without the float's text, the surrogate's own refusal names row 1."""
    numbers = ["+33612345678", "+3361234\ud8005", "33612345679.0"]
    frame = pd.DataFrame({"phone_number": pd.Series(numbers, dtype=object)})
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(None, frame, text="Bonjour", sender="MyShop", purpose="alert")
    assert (caught.value.rule, caught.value.position) == (RULE_FLOAT, 2)
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(None, frame.iloc[:2], text="Bonjour", sender="MyShop", purpose="alert")
    assert (caught.value.field, caught.value.position) == ("recipients.phone_number", 1)


@settings(max_examples=25, deadline=None)
@given(values=numbers, data=st.data())
def test_a_float_s_text_in_any_chunk_of_arrow_strings_is_refused_at_its_row(
    values: list[int], data: st.DataObject
) -> None:
    """A CSV's column is Arrow strings held in chunks (17 of them for a million rows): the
    float's text is refused with RULE_FLOAT naming its row whichever chunk holds it; the same
    texts without it are all read (differential)."""
    at = data.draw(st.integers(0, len(values) - 1), label="at")
    cuts = data.draw(st.lists(st.integers(0, len(values)), max_size=3), label="cuts")
    bounds = sorted({0, len(values), *cuts})
    texts = [f"+{v}" for v in values]
    floated = [*texts[:at], f"{values[at]}.0", *texts[at + 1 :]]

    def in_chunks(items: list[str]) -> pd.DataFrame:
        parts = [items[start:end] for start, end in pairwise(bounds)]
        column = pa.chunked_array(parts, type=pa.large_string())
        return pd.DataFrame({"phone_number": pd.arrays.ArrowStringArray(column)})

    options = {"text": "Bonjour", "sender": "MyShop", "purpose": "alert"}
    with pytest.raises(ValidationError) as caught:
        smskit.Campaign(None, in_chunks(floated), **options)
    assert (caught.value.rule, caught.value.position) == (RULE_FLOAT, at)
    plain = smskit.Campaign(None, in_chunks(texts), **options)
    assert plain.preflight(offline=True).recipients == len(values)
