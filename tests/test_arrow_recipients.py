"""Recipients given as pyarrow or polars objects (issue #29 item 7).

The one recipients reader reads a pyarrow Table / RecordBatch / Array / ChunkedArray and a
polars DataFrame / Series through Arrow (smskit.rules.arrowinput): the same recipients as
pandas, pyarrow and polars give the same preflight reports and the same payloads; what cannot
be read exactly is refused naming the field, the row and the rule; polars is never imported
by smskit.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smskit
from smskit import text
from smskit.campaigns import create_contacts, delete_contacts
from smskit.campaigns.sending.journal import Journal
from smskit.client.checks import to_contacts
from smskit.rules.recipients import Recipients
from smskit.sandbox import Sandbox

OPTIONS: dict[str, Any] = {
    "text": "Bonjour {first_name}, code 1234",
    "sender": "Shop",
    "purpose": "alert",
}
NOW = datetime(2030, 1, 7, 10, tzinfo=UTC)  # a Monday morning: no marketing-hours warning
NUMBERS = ["+33612345678", "06 12 34 56 79", "0033612345680", "+33612345678", "12", "",
           None, "+32470123456", "0470123457", " +44 7700 900123 ", "+1 (202) 555-0143",
           "abc"]  # fmt: skip
NAMES = ["Zoé", "Ann", None, "", "back\\slash", "🙂", "x" * 60]
COUNTRIES = ["FR", "BE", "GB", None, "be"]


def libraries(columns: dict[str, list[Any]]) -> dict[str, Any]:
    """The same columns as a pandas DataFrame, a pyarrow Table and RecordBatch, a polars
    DataFrame."""
    return {
        "pandas": pd.DataFrame(columns),
        "pyarrow table": pa.table(columns),
        "pyarrow record batch": pa.record_batch(columns),
        "polars": pl.DataFrame(columns),
    }


def report_frame(recipients: Any, **options: Any) -> pd.DataFrame:
    """The offline preflight report's rows (nothing is asked of a gateway)."""
    campaign = smskit.Campaign(None, recipients, **{**OPTIONS, **options})
    return campaign.preflight(offline=True, now=NOW).to_frame()


def refused(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> smskit.ValidationError:
    """The ValidationError ``fn`` raises (fails on anything else, or nothing)."""
    with pytest.raises(smskit.ValidationError) as caught:
        fn(*args, **kwargs)
    return caught.value


ROWS = st.lists(
    st.fixed_dictionaries({
        "phone_number": st.sampled_from(NUMBERS),
        "first_name": st.sampled_from(NAMES),
        "country": st.sampled_from(COUNTRIES),
    }),
    min_size=1,
    max_size=12,
)  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=ROWS, with_country=st.booleans())
def test_the_same_recipients_give_the_same_report_and_payloads(
    rows: list[dict[str, Any]], with_country: bool
) -> None:
    """pandas, pyarrow (Table, RecordBatch) and polars frames of the same rows give equal
    preflight reports (every column, dtypes included) and equal Contact objects to send."""
    names = ["phone_number", "first_name", *(["country"] if with_country else [])]
    columns = {name: [row[name] for row in rows] for name in names}
    given_as = libraries(columns)
    expected = report_frame(given_as.pop("pandas"))
    contacts = to_contacts(pd.DataFrame(columns), "recipients", strict=False)
    for library, value in given_as.items():
        pd.testing.assert_frame_equal(report_frame(value), expected, obj=library)
        assert to_contacts(value, "recipients", strict=False) == contacts, library


@settings(max_examples=30, deadline=None)
@given(numbers=st.lists(st.sampled_from([n for n in NUMBERS if n is not None]), min_size=1))
def test_an_array_is_read_as_a_series_of_numbers(numbers: list[str]) -> None:
    """A pyarrow Array / ChunkedArray and a polars Series of numbers are read as the pandas
    Series of the same numbers: equal reports."""
    expected = report_frame(pd.Series(numbers), text="Code 1234")
    half = len(numbers) // 2
    for value in (
        pa.array(numbers),
        pa.chunked_array([numbers[:half], numbers[half:]], type=pa.string()),
        pl.Series(numbers),
    ):
        pd.testing.assert_frame_equal(report_frame(value, text="Code 1234"), expected)


def test_arrow_encodings_of_text_are_read_as_their_values() -> None:
    """large_string, string_view, dictionary-encoded text, a polars Categorical or Enum, and
    a column of many chunks are read as the plain text column: equal reports."""
    numbers = NUMBERS[:6] * 50
    countries = (["FR", "BE", None] * 100)[: len(numbers)]
    plain = pa.table({"phone_number": numbers, "country": countries})
    expected = report_frame(plain, text="Code 1234")
    enum = pl.Enum(["BE", "FR"])
    encodings = {
        "large_string": plain.cast(pa.schema([("phone_number", pa.large_string()),
                                              ("country", pa.large_string())])),
        "string_view": plain.cast(pa.schema([("phone_number", pa.string_view()),
                                             ("country", pa.string_view())])),
        "dictionary": pa.table({"phone_number": pa.array(numbers).dictionary_encode(),
                                "country": pa.array(countries).dictionary_encode()}),
        "many chunks": pa.Table.from_batches(plain.to_batches(max_chunksize=1)),
        "polars categorical": pl.DataFrame({
            "phone_number": pl.Series(numbers, dtype=pl.Categorical),
            "country": pl.Series(countries, dtype=pl.Categorical)}),
        "polars enum": pl.DataFrame({"phone_number": numbers,
                                     "country": pl.Series(countries, dtype=enum)}),
    }  # fmt: skip
    assert encodings["many chunks"].column("phone_number").num_chunks == len(numbers)
    for name, value in encodings.items():
        pd.testing.assert_frame_equal(report_frame(value, text="Code 1234"), expected, obj=name)


def test_numbers_and_fields_of_other_types_mean_what_they_mean_in_pandas() -> None:
    """An integer number column (nulls included: never made floats), a float column, and
    fields of integers, floats, booleans and dates are read as pandas reads the same values."""
    table = pa.table({
        "phone_number": pa.array([33612345678, None, 33612345679], pa.int64()),
        "first_name": pa.array([1234, None, 7], pa.int32()),
        "last_name": [True, False, None],
        "param1": [datetime(2030, 1, 1, tzinfo=UTC), None, None],
        "param2": [1.5, 2.0, None],
    })  # fmt: skip
    pandas = pd.DataFrame({
        "phone_number": [33612345678, None, 33612345679],
        "first_name": [1234, None, 7],
        "last_name": [True, False, None],
        "param1": [pd.Timestamp("2030-01-01", tz="UTC"), None, None],
        "param2": [1.5, 2.0, None],
    }, dtype=object)  # fmt: skip
    template = "Hi {first_name} {last_name} {param1} {param2}"
    expected = to_contacts(pandas, "recipients", strict=False)
    assert expected[0] == {
        "phone_number": "33612345678", "first_name": "1234", "last_name": "True",
        "param1": "2030-01-01 00:00:00+00:00", "param2": "1.5",
    }  # fmt: skip
    for value in (table, pl.from_arrow(table)):
        assert to_contacts(value, "recipients", strict=False) == expected
        report = report_frame(value, text=template)
        assert report["text"].tolist() == report_frame(pandas, text=template)["text"].tolist()
    floats = pa.table({"phone_number": [None, 33612345678.0]})  # a float is never a number
    with pytest.raises(smskit.ValidationError, match="a float cannot hold a phone") as caught:
        report_frame(floats, text="Code 1234")
    assert (caught.value.field, caught.value.position) == ("recipients.phone_number", 1)


def test_text_columns_share_arrow_buffers_and_polars_is_not_imported(tmp_path: Path) -> None:
    """The numbers of a pyarrow Table reach the reader in Arrow's own buffer (no copy, no
    Python string a cell), as pandas' `str` column; reading pyarrow data never imports polars."""
    table = pa.table({"phone_number": pa.array(NUMBERS[:5], pa.large_string())})
    column = Recipients(table).frame["phone_number"]  # type: ignore[index]
    assert column.dtype == pd.StringDtype("pyarrow", na_value=float("nan"))
    stored = pa.array(column.array)
    chunk = stored.chunk(0) if isinstance(stored, pa.ChunkedArray) else stored
    source = table.column("phone_number").chunk(0)
    assert chunk.buffers()[2].address == source.buffers()[2].address
    script = (
        "import sys, pyarrow as pa, smskit\n"
        "c = smskit.Campaign(None, pa.table({'phone_number': ['+33612345678']}),"
        " text='Code 1234', sender='Shop')\n"
        "assert c.preflight(offline=True).to_send == 1\n"
        "print('polars' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=tmp_path)  # fmt: skip
    assert ran.stdout.strip() == "False"


def _invalid_utf8() -> pa.Table:
    good = pa.array(["+33612345678", "+33612345679"])
    offsets = pa.py_buffer(b"\x00\x00\x00\x00\x02\x00\x00\x00")  # one value of 2 bytes
    bad = pa.Array.from_buffers(pa.string(), 1, [None, offsets, pa.py_buffer(b"\xff\xfe")])
    return pa.table({"phone_number": pa.chunked_array([good, bad])})


REFUSED: dict[str, tuple[Callable[[], Any], str, int | None, str]] = {
    "binary column": (lambda: pa.table({"phone_number": [b"+33612345678"]}),
                      "recipients.phone_number", 0, "bytes, not text"),
    "list column": (lambda: pa.table({"phone_number": [None, ["+33612345678"]]}),
                    "recipients.phone_number", 1, "lists, structs or maps"),
    "struct column": (lambda: pa.table({"first_name": [{"a": "b"}], "phone_number": ["1"]}),
                      "recipients.first_name", 0, "lists, structs or maps"),
    "map column": (lambda: pa.table({"param1": pa.array([[("k", "v")]],
                                                        pa.map_(pa.string(), pa.string())),
                                     "phone_number": ["1"]}),
                   "recipients.param1", 0, "lists, structs or maps"),
    "extension column": (lambda: pa.table({"phone_number": pa.array([b"0" * 16], pa.uuid())}),
                         "recipients.phone_number", 0, "extension type"),
    "repeated column": (lambda: pa.table([["+33612345678"], ["+33612345679"]],
                                         ["phone_number", "phone_number"]),
                        "recipients.phone_number", None, "more than once"),
    "no phone_number column": (lambda: pa.table({"number": ["+33612345678"]}),
                               "recipients", None, "'phone_number' column"),
    "bytes that are not UTF-8": (_invalid_utf8, "recipients.phone_number", 2, "not UTF-8"),
    "array of floats": (lambda: pa.array([33612345678.0]), "recipients", 0, "double"),
    "array with a null": (lambda: pa.array(["+33612345678", "+33612345679", None]),
                          "recipients", 2, "phone number or a dict"),
    "polars series with a null": (lambda: pl.Series(["+33612345678", None]),
                                  "recipients", 1, "phone number or a dict"),
    "struct array with an unknown field": (
        lambda: pa.array([{"phone_number": "+33612345678", "firstname": "Al"}]),
        "recipients.firstname", 0, "unknown field"),
    "struct array with a null row": (
        lambda: pa.array([{"phone_number": "+33612345678"}, None]),
        "recipients", 1, "phone number or a dict"),
    "struct array without phone_number": (lambda: pa.array([{"first_name": "Al"}]),
                                          "recipients.phone_number", 0, "is required"),
    "polars lazy frame": (lambda: pl.DataFrame({"phone_number": ["1"]}).lazy(),
                          "recipients", None, ".collect()"),
    "polars object column": (lambda: pl.DataFrame({"phone_number": pl.Series([object()],
                                                                             dtype=pl.Object)}),
                             "recipients.phone_number", 0, "bytes, not text"),
    "pyarrow scalar": (lambda: pa.scalar("+33612345678"), "recipients", None,
                       "Table, RecordBatch, Array or ChunkedArray"),
    "pyarrow stream": (lambda: pa.RecordBatchReader.from_batches(
        pa.schema([("phone_number", pa.string())]), []), "recipients", None, ".read_all()"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_cannot_be_read_exactly_is_refused_naming_field_row_and_rule(case: str) -> None:
    """Each Arrow or polars value smskit cannot read exactly is a ValidationError naming the
    column, the row and the rule, in the campaign and in send's reading of recipients."""
    make, field, row, rule = REFUSED[case]
    for read in (lambda v: smskit.Campaign(None, v, **OPTIONS),
                 lambda v: to_contacts(v, "recipients", strict=True)):  # fmt: skip
        error = refused(read, make())
        assert (error.field, error.position) == (field, row), str(error)
        assert rule in error.rule, str(error)


def test_a_table_from_pandas_with_non_string_names_reads_as_the_frame() -> None:
    """Arrow names are text: a pandas frame's non-string column names (0, None) become "0",
    "None", which are no field: ignored, as the pandas reader ignores 0 and None."""
    frame = pd.DataFrame([["+33612345678", "a", "b"]], columns=["phone_number", 0, None])
    table = pa.Table.from_pandas(frame, preserve_index=False)
    assert table.column_names == ["phone_number", "0", "None"]
    pd.testing.assert_frame_equal(report_frame(table), report_frame(frame))


@pytest.fixture
def client(fresh_sandbox: Sandbox) -> Iterator[smskit.Client]:
    """A client on the test's own sandbox, without retries."""
    with smskit.Client(sandbox=fresh_sandbox, max_retries=0) as made:
        yield made


def test_a_polars_frame_is_sent_over_http_as_the_pandas_frame_would_be(
    client: smskit.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """One campaign sent from a polars frame over real HTTP: the sandbox received exactly the
    texts and numbers, and the journal planned exactly the payloads, of the same campaign from
    the pandas frame (sent to a second sandbox)."""
    columns = {
        "phone_number": ["0612345678", "+33 6 12 34 56 79", "0612345678", "12", "0470123457"],
        "first_name": ["Zoé", None, "Al", "Bo", "Cy"],
        "country": ["FR", "FR", "FR", "FR", "BE"],
    }
    sent: dict[str, tuple[list[dict[str, Any]], Any]] = {}
    with Sandbox() as other, smskit.Client(sandbox=other, max_retries=0) as other_client:
        for library, value, runner, box in (
            ("polars", pl.DataFrame(columns), client, fresh_sandbox),
            ("pandas", pd.DataFrame(columns), other_client, other),
        ):
            path = tmp_path / f"{library}.sqlite"
            result = smskit.Campaign(runner, value, name="same", **OPTIONS).send(
                progress=False, journal=path
            )
            assert result.complete and len(result.excluded) == 2
            with Journal(path) as journal:
                payloads = [journal.payload(chunk) for chunk in journal.chunks()]
            rows = box.sent()[["phone_number", "text"]].sort_values("phone_number")
            sent[library] = (payloads, rows.reset_index(drop=True))
    assert sent["polars"][0] == sent["pandas"][0]
    pd.testing.assert_frame_equal(sent["polars"][1], sent["pandas"][1])
    assert sent["polars"][1]["text"].tolist() == [
        "Bonjour Cy, code 1234",
        "Bonjour Zoé, code 1234",
        "Bonjour , code 1234",
    ]


def test_every_entry_point_reads_arrow_and_polars_recipients(
    client: smskit.Client, fresh_sandbox: Sandbox
) -> None:
    """send, contact.create / delete / hlr_request, create_contacts / delete_contacts,
    bulk_hlr, render_all and the Composer read pyarrow and polars objects as their pandas
    equivalents."""
    numbers = ["+33612345678", "+33612345679"]
    for value in (pa.table({"phone_number": numbers, "first_name": ["Al", "Bo"]}),
                  pl.DataFrame({"phone_number": numbers, "first_name": ["Al", "Bo"]})):  # fmt: skip
        series = pl.Series(numbers) if isinstance(value, pl.DataFrame) else pa.array(numbers)
        answer = client.sms_campaign.send(recipients=value, **OPTIONS)
        assert answer.number_of_contacts == 2
        client.contact.create(value, list_name="arrow")
        contacts = fresh_sandbox.contacts().set_index("phone_number")
        assert contacts.loc["+33612345679", "first_name"] == "Bo"
        hlr = client.contact.hlr_request(series)
        assert [r.phone_number for r in hlr] == numbers
        client.contact.delete(value)
        assert fresh_sandbox.contacts().empty
        created = create_contacts(client, value, progress=False)
        assert created["status"].tolist() == ["added", "added"]
        deleted = delete_contacts(client, series, progress=False)
        assert deleted["phone_number"].tolist() == numbers
        frame = smskit.bulk_hlr(client, series, progress=False, journal=False).to_frame()
        assert frame["phone_number"].tolist() == numbers
        assert text.render_all("Hi {first_name}", value).tolist() == ["Hi Al", "Hi Bo"]
        composer = smskit.Composer(client, value, text="Hi {first_name}", sender="Shop")
        report = composer.preflight
        assert report is not None and report.to_frame()["text"].tolist() == ["Hi Al", "Hi Bo"]


def test_an_experiment_splits_arrow_and_polars_recipients_as_pandas_ones(tmp_path: Path) -> None:
    """smskit.Experiment reads its audience through the same reader: with the same seed, a
    pyarrow Table and a polars DataFrame are split into the same arms, row for row, as the
    pandas frame of the same recipients (and record the same count and digest of numbers)."""
    columns = {
        "phone_number": [f"06123456{i:02d}" for i in range(40)],
        "country": ["FR", "BE"] * 20,
    }
    made = {
        library: smskit.Experiment(
            None, value, variants={"a": "Code 1234", "b": "Code 5678"}, sender="Shop",
            seed=7, stratify="country", directory=tmp_path / library, purpose="alert",
        )
        for library, value in libraries(columns).items()
    }  # fmt: skip
    expected = made.pop("pandas")
    assert set(expected.assignment()["arm"]) == {"a", "b"}
    for library, experiment in made.items():
        assert experiment.record.recipients == 40, library
        assert experiment.record.numbers == expected.record.numbers, library
        pd.testing.assert_frame_equal(experiment.assignment(), expected.assignment(), obj=library)


def test_phones_normalize_reads_a_polars_series_as_the_pandas_series() -> None:
    """smskit.phones.normalize of a polars Series (read through its Arrow array, as a pyarrow
    array is) equals normalize of the pandas Series of the same values, nulls included."""
    values = [*NUMBERS, "0470123457"]
    expected = smskit.phones.normalize(pd.Series(values), "FR")
    for value in (pl.Series(values), pa.array(values)):
        pd.testing.assert_frame_equal(smskit.phones.normalize(value, "FR"), expected)
