"""numpy integers are numbers like Python's, at every public entry point that reads one.

The class (issue 33: ``OptOuts.add(np.int64(...))`` raised ``TypeError``): a number held in
a numpy scalar or a numpy-int column (what ``pd.read_csv`` makes of a column of digits) is
read exactly as the same Python int, by the one recipients/number reader in
:mod:`smskit.rules`: campaigns (list, scalar, dict, column; pandas, Dask, the Composer, an
experiment), ``Client.sms_campaign.send`` and ``contact.create``, bulk HLR, the opt-out list.
Where a Python int is refused (``contact.hlr_request`` wants E.164 text), the numpy one is
refused with the same error naming the field. Each example is differential: numpy versus
Python, over real HTTP to the sandbox where a gateway is involved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
from smskit.errors import ValidationError
from smskit.replies.optouts import OptOutsNotReadWarning
from smskit.sandbox import Sandbox

TEXT = "Promo -20% {param1}. STOP au 36173"
# numpy integer types that hold a French number given nationally (612345678) or
# internationally (33612345678), and those that hold only the national one.
WIDE = (np.int64, np.uint64)
NARROW = (np.int32, np.uint32)

national = st.integers(600_000_000, 799_999_999)
numbers = st.lists(st.one_of(national, national.map(lambda n: 33_000_000_000 + n)), min_size=1,
                   max_size=4, unique=True)  # fmt: skip
# Every kind is tried (parametrized), a few values each: the class is the kind, not the value.
KINDS = pytest.mark.parametrize("kind", WIDE + NARROW, ids=lambda k: k.__name__)


def as_numpy(values: list[int], kind: type[np.integer[Any]]) -> list[np.integer[Any]]:
    """Each value as a numpy scalar of ``kind`` (national values where ``kind`` is narrow)."""
    if kind in NARROW:
        values = [v % 1_000_000_000 for v in values]
    return [kind(v) for v in values]


def outcome(call: Callable[..., Any], *args: Any) -> Any:
    """What ``call(*args)`` answers, or the error it raises (type, field and message)."""
    try:
        return call(*args)
    except ValidationError as error:
        return ("refused", error.field, str(error))


def pythons(values: list[np.integer[Any]]) -> list[int]:
    return [int(v) for v in values]


def preflighted(client: smskit.Client, recipients: Any) -> list[Any]:
    report = smskit.Campaign(client, recipients, text=TEXT, sender="Shop").preflight(offline=True)
    return report.frame[["phone_number", "issue", "text"]].astype(object).values.tolist()


FEW = settings(max_examples=2, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip


@pytest.fixture(scope="module")
def client(sandbox: Sandbox) -> Iterator[smskit.Client]:
    """One client on the session's sandbox for the whole module."""
    with smskit.Client(sandbox=sandbox) as client:
        yield client


@KINDS
@FEW
@given(values=numbers)
def test_a_campaign_reads_numpy_numbers_as_python_ints(
    client: smskit.Client, values: list[int], kind: type[np.integer[Any]]
) -> None:
    """Campaign preflight: numpy scalars in a list, alone, in dicts (number and field) and a
    numpy-int column give the rows Python ints give."""
    given_ = as_numpy(values, kind)
    plain = pythons(given_)
    assert preflighted(client, given_) == preflighted(client, plain)
    assert preflighted(client, given_[0]) == preflighted(client, plain[0])
    dicts = [{"phone_number": v, "param1": v} for v in given_]
    assert preflighted(client, dicts) == preflighted(
        client, [{"phone_number": v, "param1": v} for v in plain]
    )
    column = pd.DataFrame({"phone_number": np.array(given_, dtype=kind)})
    assert preflighted(client, column) == preflighted(client, pd.DataFrame({"phone_number": plain}))
    assert preflighted(client, plain)[0][0] is not None  # a real number was read, not refused


@KINDS
@FEW
@given(values=numbers)
def test_the_client_and_bulk_hlr_read_numpy_numbers_as_python_ints(
    client: smskit.Client, values: list[int], kind: type[np.integer[Any]]
) -> None:
    """sms_campaign.send (simulated), contact.create, bulk_hlr (list and column) and
    contact.hlr_request answer numpy numbers as they answer Python ints (refusals too)."""
    given_ = as_numpy(values, kind)
    plain = pythons(given_)

    def send(recipients: Any) -> Any:
        sent = client.sms_campaign.send(text="Code 1234", recipients=recipients, sender="Shop",
                                        purpose="alert", simulation_mode=True)  # fmt: skip
        # What the gateway made of the recipients; the request id is new on every call and
        # the residual credit moves with the account (an HLR in between is billed).
        return replace(sent, request_id=None, residual_credit=None)

    def created(recipients: Any) -> Any:
        return client.contact.create(recipients).to_frame()["phone_number"].tolist()

    def hlr(recipients: Any) -> Any:
        answers = smskit.bulk_hlr(client, recipients, progress=False, journal=False).to_frame()
        return answers[["phone_number", "phone_number_type"]].values.tolist()

    def raw_hlr(recipients: Any) -> Any:
        return client.contact.hlr_request(recipients).to_frame()["phone_number"].tolist()

    for call in (send, created, hlr, raw_hlr):
        assert outcome(call, given_) == outcome(call, plain), call.__name__
    column = pd.DataFrame({"phone_number": np.array(given_, dtype=kind)})
    assert outcome(hlr, column) == outcome(hlr, plain)
    assert outcome(send, given_[0]) == outcome(send, plain[0])
    assert isinstance(outcome(hlr, plain), list)  # read and checked, not refused


@KINDS
def test_the_opt_out_list_reads_numpy_numbers_as_python_ints(
    kind: type[np.integer[Any]], client: smskit.Client, tmp_path: Path
) -> None:
    """OptOuts.add, `in` and remove take a numpy scalar (and a numpy-int array) as the int."""
    value = kind(612345678)
    with (
        pytest.warns(OptOutsNotReadWarning),  # a list at a path of its own, said so
        smskit.OptOuts(client, path=tmp_path / "o.sqlite") as listed,
    ):
        assert listed.add(value) == 1 and listed.numbers() == frozenset({"+33612345678"})
        assert value in listed and 612345678 in listed
        assert listed.add(np.array([612345678], dtype=kind)) == 0  # already listed
        assert listed.remove(value) == 1 and value not in listed


@pytest.mark.parametrize("kind", WIDE, ids=lambda k: k.__name__)
def test_composer_experiment_and_dask_read_numpy_int_columns_as_python_ints(
    kind: type[np.integer[Any]], client: smskit.Client, tmp_path: Path
) -> None:
    """The Composer's preflight, an experiment's assignment and a Dask campaign's preflight
    read a numpy-int column as the column of Python ints."""
    plain = [33612345670 + i for i in range(8)]
    column = pd.DataFrame({"phone_number": np.array(plain, dtype=kind)})
    ints = pd.DataFrame({"phone_number": pd.Series(plain, dtype=object)})

    def composed(frame: pd.DataFrame) -> list[Any]:
        composer = smskit.Composer(client, frame, text="Promo. STOP au 36173", sender="Shop")
        composer.refresh()
        assert composer.preflight is not None
        return composer.preflight.frame["phone_number"].tolist()

    def assigned(frame: pd.DataFrame, name: str) -> list[Any]:
        experiment = smskit.Experiment(
            client, frame, sender="Shop", seed=4, directory=tmp_path / name, name="np",
            variants={"A": "A. STOP au 36173", "B": "B. STOP au 36173"},
        )  # fmt: skip
        return experiment.assignment()[["row", "arm"]].astype(str).values.tolist()

    def streamed(frame: pd.DataFrame) -> list[Any]:
        campaign = smskit.dask.Campaign(client, dd.from_pandas(frame, npartitions=2),
                                        text="Promo. STOP au 36173", sender="Shop")  # fmt: skip
        return campaign.preflight(offline=True).frame.compute()["phone_number"].tolist()

    assert composed(column) == composed(ints) == [f"+{n}" for n in plain]
    assert assigned(column, "np") == assigned(ints, "py")
    assert streamed(column) == streamed(ints) == [f"+{n}" for n in plain]
