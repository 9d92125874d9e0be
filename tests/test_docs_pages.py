"""The README and every page of docs/ stand on their own: each document they cite or link
is in the checkout (the gateway's specification is quoted where relied on, never cited as a
file the reader does not have), and each command they quote runs."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import click

from smskit.cli.main import cli

REPO = Path(__file__).resolve().parent.parent
PAGES = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))

# A document named in the text: `docs/x.md`, docs/x.md, spec/y.md, [text](path), ...
CITED_DOCUMENT = re.compile(r"(?<![\w/.-])((?:\.\./|[\w.-]+/)*[\w.-]+\.md)\b")
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s#]+)")
COMMENT = re.compile(r"<!--.*?-->", re.S)  # notes to the editors, not shown to a reader
# Code as a page shows it (a fenced block, or a span, which may wrap), the smskit commands
# in it with what follows on their line, and the modules run with python -m.
CODE = re.compile(r"```.*?```|`[^`]+`", re.S)
COMMAND = re.compile(r"(?:^|[\s`$(])(?:python -m )?smskit((?: [a-z][\w-]*)+)([^\n#`]*)", re.M)
FLAG = re.compile(r"(?<![\w-])--[a-z][\w-]*")
MODULE = re.compile(r"python -m ([\w.]+)")


def _missing(page: Path, text: str) -> list[str]:
    """The documents and link targets of ``text`` found neither from the checkout's root nor
    from the page's folder."""
    text = COMMENT.sub("", text)
    cited = {match.group(1) for match in CITED_DOCUMENT.finditer(text)}
    cited |= {match.group(1) for match in LINK.finditer(text)}
    return sorted(
        path for path in cited if not ((REPO / path).exists() or (page.parent / path).exists())
    )


def test_every_document_a_page_cites_is_in_the_checkout() -> None:
    """No README or docs/ page names a Markdown document (or links a file) that a clone does
    not hold: a reader can open everything a page relies on."""
    assert len(PAGES) > 10
    missing = {
        str(page.relative_to(REPO)): found
        for page in PAGES
        if (found := _missing(page, page.read_text(encoding="utf-8")))
    }
    assert missing == {}


def test_the_check_sees_a_document_outside_the_checkout() -> None:
    """A page citing the workplace's spec file, or linking a missing page, is caught; pages
    of docs/ cited from the README or from each other, and notes in comments, are not."""
    page = REPO / "docs" / "sandbox.md"
    text = (
        "the spec (`shared/spec/gateway-api.md`), see [vendor](../spec/vendor-notes.md); "
        "docs/campaigns.md, [outcomes](outcomes.md), `README.md`, [img](img/composer.png)"
        "<!-- rows to add once the page is on main: docs/links.md -->"
    )
    assert _missing(page, text) == ["../spec/vendor-notes.md", "shared/spec/gateway-api.md"]


def test_the_readme_says_where_each_capability_is_documented() -> None:
    """The README links every guide of docs/ (the pages a newcomer looks for), and says that
    a `country` column sets the region of national numbers; so does docs/campaigns.md."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    guides = {
        page.name
        for page in (REPO / "docs").glob("*.md")
        if page.name not in {"index.md"}  # the Sphinx site's home, not a guide
    }
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", readme))
    assert guides - linked == set()
    for text in (readme, (REPO / "docs" / "campaigns.md").read_text(encoding="utf-8")):
        assert re.search(r"`country` column sets the region of", text)


RELIABILITY = REPO / "docs" / "reliability.md"
TEST_NAME = re.compile(r"\b(test_\w+)\b")


def _defined_tests() -> set[str]:
    """Names of the test functions and test modules of tests/ (modules are cited as files)."""
    names: set[str] = set()
    for path in (REPO / "tests").rglob("*.py"):
        names.add(path.stem)
        names |= set(re.findall(r"^\s*(?:async )?def (test_\w+)", path.read_text(), re.M))
    return names


def _guarantees(text: str) -> list[str]:
    """Each guarantee of the page: a row of a table whose header has a "Test" column (its
    Test cell), or a bullet that starts with a bold statement (the whole bullet)."""
    found: list[str] = []
    test_column: int | None = None
    for block in re.split(r"\n(?=- )|\n\n", COMMENT.sub("", text)):
        if block.startswith("- **"):
            found.append(block)
    for line in text.splitlines():
        if not line.startswith("|"):
            test_column = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if test_column is None and "Test" in cells:
            test_column = cells.index("Test")
        elif test_column is not None and not set(line) <= set("|- "):
            found.append(cells[test_column] if test_column < len(cells) else "")
    return found


def test_every_guarantee_names_a_test_that_exists() -> None:
    """docs/reliability.md: each guarantee names a test, and every test and test file the
    page names exists (a renamed or deleted test leaves no promise without its proof)."""
    text = RELIABILITY.read_text(encoding="utf-8")
    guarantees = _guarantees(text)
    assert len(guarantees) > 30
    assert [g[:80] for g in guarantees if not re.search(r"test_\w+|tests/", g)] == []
    defined = _defined_tests()
    assert sorted(set(TEST_NAME.findall(text)) - defined) == []
    files = set(re.findall(r"(tests/[\w/]+\.py)", text))
    assert sorted(path for path in files if not (REPO / path).is_file()) == []


def test_the_guarantee_check_sees_a_promise_without_its_test() -> None:
    """A table row with an empty Test cell and a bold bullet without a test are found as
    guarantees the check refuses; a limit is not a guarantee."""
    page = (
        "| Guarantee | Where | Test |\n|---|---|---|\n| kept | here | |\n"
        "| proved | there | `test_x` |\n\n- **Promised.** No proof.\n- Limit: none.\n"
    )
    found = _guarantees(page)
    assert len(found) == 3
    assert sorted(g for g in found if not re.search(r"test_\w+|tests/", g)) == [
        "",
        "- **Promised.** No proof.",
    ]


def test_every_guide_is_in_the_sites_contents() -> None:
    """Each docs/*.md page is listed in a toctree of docs/index.md (Sphinx -W, in `make
    test`, fails on a page left out; this says which, without building the site)."""
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    listed = {
        line.strip()
        for tree in re.findall(r"```\{toctree\}\n(.*?)```", index, re.S)
        for line in tree.splitlines()
        if line.strip() and not line.startswith(":")
    }
    guides = {page.stem for page in (REPO / "docs").glob("*.md")} - {"index"}
    assert guides - listed == set()


def _unrunnable(text: str) -> list[str]:
    """What the code of ``text`` quotes that does not run: a module ``python -m`` cannot
    run (none, or a package without ``__main__``), a ``smskit`` subcommand the CLI lacks,
    or a flag its command does not take."""
    wrong: list[str] = []
    for code in CODE.findall(COMMENT.sub("", text)):
        code = re.sub(r"\\?\n\s*(?=\[|--)", " ", code)  # a command wrapped onto the next line
        for module in MODULE.findall(code):
            spec = importlib.util.find_spec(module)
            package = spec is not None and spec.submodule_search_locations is not None
            if spec is None or (package and importlib.util.find_spec(f"{module}.__main__") is None):
                wrong.append(f"python -m {module}")
        for found in COMMAND.finditer(code):
            command: click.Command = cli
            words = ["smskit"]
            for word in found.group(1).split():
                if not isinstance(command, click.Group):
                    break
                if word not in command.commands:
                    wrong.append(" ".join([*words, word]))
                    break
                command, words = command.commands[word], [*words, word]
            if isinstance(command, click.Group):
                continue
            takes = {flag for p in command.params for flag in (*p.opts, *p.secondary_opts)}
            for flag in FLAG.findall(found.group(2)):
                if flag not in takes | {"--help"}:
                    wrong.append(f"{' '.join(words)} {flag}")
    return wrong


def test_every_command_a_page_quotes_runs() -> None:
    """Each `python -m` module, `smskit` subcommand and flag the README or a docs/ page
    shows in code exists: a reader who copies it is not told "no module named" or "no such
    option" (docs/sandbox.md showed `python -m smskit.sandbox` after it moved)."""
    wrong = {
        str(page.relative_to(REPO)): found
        for page in PAGES
        if (found := _unrunnable(page.read_text(encoding="utf-8")))
    }
    assert wrong == {}


def test_the_command_check_sees_what_does_not_run() -> None:
    """A package without __main__, an unknown subcommand and an unknown flag (on a wrapped
    line too) are caught; commands, flags and modules that exist are not."""
    text = (
        "`python -m smskit.sandbox --port 0`, `python -m smskit sandbox --port 0`, "
        "`smskit campaign statuss`, ```\nsmskit send --to +33612345678 --yes --frobnicate\n```"
        " `smskit sandbox --host 127.0.0.1\n  [--seed N] [--colour]`, `python -m pytest`"
    )
    assert _unrunnable(text) == [
        "python -m smskit.sandbox",
        "smskit campaign statuss",
        "smskit send --frobnicate",
        "smskit sandbox --colour",
    ]
