"""Every Python block of README.md runs as pasted, in order, in one session (Sybil)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser

import smskit

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
ENV = ("SMSKIT_API_LOGIN", "SMSKIT_API_KEY", "SMSKIT_BASE_URL")


def test_every_readme_python_block_runs_as_pasted(
    monkeypatch: pytest.MonkeyPatch, user_dirs: Path
) -> None:
    """The blocks (Ten lines, Campaigns, Replies...) run one after another from the checkout
    with no SMSKIT_* set, as a new user would paste them; none writes into the checkout."""
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(REPO)
    before = sorted(path.name for path in REPO.iterdir())
    document = Sybil(parsers=[PythonCodeBlockParser()]).parse(README)
    examples = list(document.examples())
    assert len(examples) >= 3
    try:
        for example in examples:
            try:
                example.evaluate()
            except Exception as exc:  # name the block: README line numbers, not exec frames
                raise AssertionError(f"README.md line {example.line}: {exc!r}") from exc
    finally:
        for value in document.namespace.values():
            if isinstance(value, smskit.Sandbox | smskit.Inbox):
                value.stop()
    assert sorted(path.name for path in REPO.iterdir()) == before
    assert (user_dirs / "data" / "smskit" / "campaigns" / "june-promo.journal.sqlite").is_file()
