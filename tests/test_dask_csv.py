"""smskit.dask.Campaign.from_csv against smskit.Campaign.from_csv: the same file is read the
same way or refused the same way (field, rule, row, line). It read its files with
``dd.read_csv``, a second CSV reader without the whole-file checks: a NUL byte was read into
a name, Latin-1 bytes raised a raw UnicodeDecodeError, an unclosed quote a raw ValueError,
a repeated phone_number column was read by its first copy and a row longer than the header
made its number an index (the recipient then "invalid"). Now each file is read by the one
recipients' CSV reader (``smskit.rules.csvtext.read_csv_text``)."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dask
import distributed
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import smskit
import smskit.dask
from smskit.errors import ValidationError

NOW = datetime(2026, 1, 5, 10, tzinfo=UTC)  # a Monday morning: marketing hours open in FR
TEXT = "Bonjour {first_name} STOP au 36173"
HEADER = b"phone_number,first_name\n"
# Dask in this process (quicker for many small files): its shuffles by tasks, not p2p.
IN_PROCESS = {"scheduler": "synchronous", "dataframe.shuffle.method": "tasks"}
FILES: dict[str, bytes] = {
    "NUL byte": HEADER + b"+33612345678,An\x00ne\n+33612345679,Bob\n",
    "Latin-1": HEADER + b"+33612345678,Zo\xe9\n",
    "a float's text": HEADER + b"+33612345679,Bob\n33612345678.0,Anne\n",
    "repeated header": b"phone_number,first_name,phone_number\n+33612345678,Anne,+33612345679\n",
    "unclosed quote": HEADER + b'+33612345678,"Anne\n+33612345679,Marc\n',
    "long row": HEADER + b"+33612345678,Anne,extra\n",
    "short row, blank line, BOM": b"\xef\xbb\xbf" + HEADER + b"0612345678\n\n+33612345679,\n",
    "texts as written": HEADER + b'06 12 34 56 78,NA\n"+33612345679",null\n00123, \n',
    "empty": b"",
    "no phone_number": b"first_name\nAnne\n",
}


def outcome(make: Any) -> tuple[Any, ...]:
    """What a campaign made by ``make`` does with its file: its preflight's rows (row,
    input, number, issue, detail, text), or its refusal (field, rule, row, line)."""
    try:
        report = make().preflight(now=NOW, offline=True)
    except ValidationError as exc:
        return ("refused", exc.field, exc.rule, exc.position, exc.line)
    frame = report.frame
    frame = frame.compute() if hasattr(frame, "compute") else frame
    rows = frame[["row", "input", "phone_number", "issue", "detail", "text"]].astype(object)
    return ("read", rows.where(rows.notna(), None).values.tolist())


def both(path: Path, given_as: Any = None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The pandas campaign's outcome of the file at ``path``, and the Dask campaign's of
    ``given_as`` (the same file by default)."""
    pandas = outcome(lambda: smskit.Campaign.from_csv(None, path, text=TEXT, sender="Shop"))
    streamed = outcome(
        lambda: smskit.dask.Campaign.from_csv(None, given_as or path, text=TEXT, sender="Shop")
    )
    return pandas, streamed


@pytest.mark.parametrize("kind", sorted(FILES))
def test_the_dask_campaign_reads_or_refuses_a_csv_as_the_pandas_one(
    kind: str, tmp_path: Path, dask_cluster: distributed.Client
) -> None:
    """Each file of the family, on a real cluster (its workers read the file): the same
    rows, or the same refusal."""
    path = tmp_path / "customers.csv"
    path.write_bytes(FILES[kind])
    pandas, streamed = both(path)
    assert streamed == pandas
    if kind in ("NUL byte", "Latin-1", "unclosed quote", "repeated header", "long row"):
        assert pandas[0] == "refused"


CELLS = st.one_of(
    st.sampled_from(["", " ", "NA", "0612345678", "+33612345679", "33612345678.0", "Zoë"]),
    st.sampled_from(['"', ",", "x\ny", "phone_number", "06 12 34 56 78", "+32 470 12 34 56"]),
    st.text(max_size=6, alphabet=st.characters(exclude_characters="\x00")),
)


@st.composite
def csv_bytes(draw: st.DrawFn) -> bytes:
    """A CSV file of recipients as a hand or a tool may write it, sometimes broken: a
    header that may repeat a column, short rows and sometimes a long one, quotes, a stray
    NUL, Latin-1 byte or quote."""
    others = st.sampled_from(["phone_number", "first_name", "email", "country"])
    header = ["phone_number", *draw(st.lists(others, max_size=3))]
    if draw(st.integers(0, 5)) == 0:
        header = draw(st.permutations(header))[1:] or header  # sometimes without numbers
    longest = len(header) + (draw(st.integers(0, 5)) == 0)
    rows = draw(st.lists(st.lists(CELLS, min_size=1, max_size=longest), max_size=6))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=draw(st.sampled_from(["\n", "\r\n"])))
    writer.writerow(header)
    writer.writerows(rows)
    data = buffer.getvalue().encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 4)) == 0:  # a stray byte where a spreadsheet's export may leave one
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xe9", b'"', b"\x00"])) + data[at:]
    return data


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=csv_bytes())
def test_any_csv_is_read_or_refused_alike(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    """Random CSV bytes: the Dask campaign reads the rows the pandas one reads, or refuses
    what it refuses, with the same field, rule, row and line (Dask in this process)."""
    path = tmp_path_factory.mktemp("csv") / "customers.csv"
    path.write_bytes(data)
    with dask.config.set(IN_PROCESS):
        pandas, streamed = both(path)
    event(pandas[0])
    assert streamed == pandas


def test_several_files_read_as_one_and_a_later_file_s_refusal_names_it(tmp_path: Path) -> None:
    """A glob of files reads as their rows in order (the pandas reading of one file holding
    them all); a defect in a later file is refused as in pandas, naming that file (its row
    and line are counted in it); a file of other recipient columns is refused naming both
    files; a Parquet file, a spreadsheet or a glob matching nothing is refused naming it."""
    (tmp_path / "a.csv").write_bytes(HEADER + b"0612345678,Anne\n+33612345679,\n")
    (tmp_path / "b.csv").write_bytes(HEADER + b"+33612345670,Zo\xc3\xab\n")
    (tmp_path / "whole.csv").write_bytes(
        HEADER + b"0612345678,Anne\n+33612345679,\n+33612345670,Zo\xc3\xab\n"
    )
    with dask.config.set(IN_PROCESS):
        pandas, streamed = both(tmp_path / "whole.csv", str(tmp_path / "[ab].csv"))
        assert streamed == pandas and pandas[0] == "read"
        (tmp_path / "b.csv").write_bytes(HEADER + b"+33612345670,Zo\xe9\n")
        with pytest.raises(ValidationError) as caught:
            smskit.dask.Campaign.from_csv(
                None, [tmp_path / "a.csv", tmp_path / "b.csv"], text=TEXT, sender="Shop"
            ).preflight(now=NOW, offline=True)
        assert caught.value.line == 2 and "holds bytes that are not UTF-8" in caught.value.rule
        assert f"in the CSV file {str(tmp_path / 'b.csv')!r}" in caught.value.rule
        (tmp_path / "b.csv").write_bytes(b"first_name,phone_number\nZoe,+33612345670\n")
        with pytest.raises(ValidationError) as caught:
            smskit.dask.Campaign.from_csv(
                None, str(tmp_path / "[ab].csv"), text=TEXT, sender="Shop"
            ).preflight(now=NOW, offline=True)
        assert "give every file the same header" in caught.value.rule
    for name, says in (("x.parquet", "from_parquet"), ("x.xlsx", "CSV UTF-8")):
        (tmp_path / name).write_bytes(b"PAR1")
        with pytest.raises(ValidationError) as caught:
            smskit.dask.Campaign.from_csv(None, tmp_path / name, text=TEXT, sender="Shop")
        assert caught.value.field == "path" and says in caught.value.rule, caught.value.rule
    with pytest.raises(ValidationError, match="matches no file"):
        smskit.dask.Campaign.from_csv(None, str(tmp_path / "none-*.csv"), text=TEXT, sender="S")


def test_from_parquet_refuses_a_path_it_cannot_read_naming_it(tmp_path: Path) -> None:
    """from_parquet of a path naming nothing, a glob matching nothing, a CSV file or an empty
    directory: a ValidationError on ``path`` naming it. It raised Dask's own errors
    (FileNotFoundError, ArrowInvalid, ValueError "An error occurred while calling the
    read_parquet method"), and for a glob matching nothing said the frame "needs a
    'phone_number' column"; a real Parquet file is still read."""
    (tmp_path / "contacts.csv").write_text("phone_number\n+33612345678\n")
    (tmp_path / "empty").mkdir()
    cases = {
        str(tmp_path / "missing.parquet"): "names no file or directory",
        str(tmp_path / "none-*.parquet"): "names no file or directory",
        str(tmp_path / "contacts.csv"): "cannot be read as Parquet files",
        str(tmp_path / "empty"): "cannot be read as Parquet files",
    }
    for path, says in cases.items():
        with pytest.raises(ValidationError) as caught:
            smskit.dask.Campaign.from_parquet(None, path, text=TEXT, sender="Shop")
        assert caught.value.field == "path" and says in caught.value.rule, caught.value.rule
        assert repr(path) in caught.value.rule, caught.value.rule
    pd.DataFrame({"phone_number": ["+33612345678"], "first_name": ["Anne"]}).to_parquet(
        tmp_path / "ok.parquet"
    )
    read = smskit.dask.Campaign.from_parquet(None, tmp_path / "ok.parquet", text=TEXT, sender="S")
    assert read.recipients.compute()["phone_number"].tolist() == ["+33612345678"]
