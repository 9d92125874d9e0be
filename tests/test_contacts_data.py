"""The demo contact file: reproducible from its script and as messy as the notebook says."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from smskit import phones

DATA = Path(__file__).resolve().parents[1] / "notebooks" / "data"


def test_script_reproduces_the_committed_csv_byte_for_byte(tmp_path: Path) -> None:
    """Running make_contacts.py with its default seed rewrites contacts.csv exactly."""
    output = tmp_path / "contacts.csv"
    subprocess.run(
        [sys.executable, str(DATA / "make_contacts.py"), "--output", str(output)],
        check=True,
        capture_output=True,
    )
    assert output.read_bytes() == (DATA / "contacts.csv").read_bytes()


def test_another_seed_gives_another_file(tmp_path: Path) -> None:
    """The seed drives the content (the committed file is not a constant)."""
    output = tmp_path / "other.csv"
    subprocess.run(
        [sys.executable, str(DATA / "make_contacts.py"), "--seed", "7", "--output", str(output)],
        check=True,
        capture_output=True,
    )
    assert output.read_bytes() != (DATA / "contacts.csv").read_bytes()


def test_committed_csv_holds_the_mess_the_notebook_cleans() -> None:
    """About 2,000 rows: several countries, blanks, bad values, landlines and duplicates."""
    with (DATA / "contacts.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2000
    assert [row["contact_id"] for row in rows] == [str(i) for i in range(1, 2001)]
    checks = [phones.classify(row["phone_number"], row["country"] or "FR") for row in rows]
    reasons = {check.reason for check in checks}
    assert {"ok", "empty", "not_a_number", "too_short", "too_long"} <= reasons
    types = {check.type for check in checks if check.valid}
    assert {"mobile", "landline", "toll_free"} <= types
    regions = {check.region for check in checks if check.valid}
    assert {"FR", "BE", "DE", "GB", "ES", "IT", "US"} <= regions
    numbers = [check.e164 for check in checks if check.valid]
    assert 50 < len(numbers) - len(set(numbers)) < 300
    spellings = {row["phone_number"] for row in rows}
    assert any(s.startswith("00") for s in spellings) and any("." in s for s in spellings)
