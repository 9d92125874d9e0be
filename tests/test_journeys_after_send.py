"""Journeys through the after-the-send features as a stranger walks them: the CLI as cron
runs it (exit codes and stderr only), broken files, odd inputs, and tracebacks shown with
their locals."""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import smskit
from smskit.campaigns.experiment import Experiment
from smskit.cli import cli
from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.replies.optouts import OptOuts
from smskit.sandbox import Sandbox

PACKAGE = Path(smskit.__file__).resolve().parent
ACCOUNT = {"SMSKIT_BASE_URL": "https://gw.example", "SMSKIT_API_LOGIN": "acme"}
KEY = "k3y-of-the-journeys-0123456789"
STOP_TEXT = "Soldes -20% ! STOP au 36173"


def run(*args: str) -> Result:
    """The command in-process on the ACCOUNT, as cron runs it (no terminal)."""
    return CliRunner().invoke(cli, list(args), env=ACCOUNT)


def locals_shown(error: BaseException) -> str:
    """The traceback as ``capture_locals=True`` prints it (every frame's locals repr'd)."""
    shown = traceback.TracebackException(
        type(error), error, error.__traceback__, capture_locals=True
    )
    return "".join(shown.format())


def _in_package(filename: str) -> bool:
    """Whether a frame's file is smskit's own code (wherever the checkout lives: its
    directory may itself be named smskit)."""
    return Path(filename).resolve().is_relative_to(PACKAGE)


# --- a file given that is not what the command reads: exit 4, naming it ------------------------


def test_optouts_absorb_of_a_file_that_is_not_an_inbox_exits_4_naming_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """`smskit optouts absorb` of a text file, or of a campaign journal: input refused (exit 4,
    as `campaign list --inbox` does), naming the argument, the file left unchanged."""
    text = tmp_path / "notes.sqlite"
    text.write_text("hello\n")
    results = [run("optouts", "absorb", str(text))]
    with smskit.Client(sandbox=sandbox) as client:
        result = smskit.Campaign(
            client, ["+33612345678"], text="Rappel RDV", sender="Clinic", purpose="alert"
        ).send(progress=False, journal=tmp_path / "c.journal.sqlite")
    journal = Path(result.journal)
    before = journal.read_bytes()
    results.append(run("optouts", "absorb", str(journal)))
    assert [r.exit_code for r in results] == [4, 4]
    assert f"INBOX {text}: " in results[0].output and "not an inbox file" in results[0].output
    assert f"INBOX {journal}: " in results[1].output and "other tables" in results[1].output
    assert text.read_text() == "hello\n" and journal.read_bytes() == before


def test_optouts_path_that_is_not_a_list_exits_4_naming_the_option(tmp_path: Path) -> None:
    """`smskit optouts list --path FILE` where FILE is no opt-out list: exit 4 naming --path,
    the file unchanged (not exit 3: the account is configured, the file given is wrong)."""
    wrong = tmp_path / "wrong.sqlite"
    wrong.write_bytes(b"not sqlite at all")
    result = run("optouts", "list", "--path", str(wrong))
    assert result.exit_code == 4
    assert f"--path {wrong}: " in result.output
    assert wrong.read_bytes() == b"not sqlite at all"


# --- reprs survive a constructor that raised (tracebacks with locals) ---------------------------


def _failing_constructors(tmp_path: Path) -> dict[str, Callable[[], object]]:
    """Calls that raise inside a new class's constructor, after ``self`` exists."""
    not_a_store = tmp_path / "not-a-store.sqlite"
    not_a_store.write_text("hello")
    client = smskit.Client("acme", KEY, "http://127.0.0.1:9")
    two = {"A": STOP_TEXT, "B": STOP_TEXT.replace("20", "30")}
    return {
        "Experiment one arm": lambda: Experiment(
            client, ["+33612345678"], variants={"A": STOP_TEXT}, sender="Shop"
        ),
        "Experiment directory": lambda: Experiment(
            client, ["+33612345678"], variants=two, sender="Shop", directory=3
        ),
        "OptOuts account": lambda: OptOuts(42),  # type: ignore[arg-type]
        "OptOuts file": lambda: OptOuts(client, path=not_a_store),
        "Inbox file": lambda: Inbox(not_a_store),
        "Inbox account": lambda: Inbox(None, account=42),  # type: ignore[arg-type]
    }


@pytest.mark.parametrize(
    "case",
    ["Experiment one arm", "Experiment directory", "OptOuts account", "OptOuts file",
     "Inbox file", "Inbox account"],
)  # fmt: skip
def test_a_refused_constructor_can_be_shown_with_its_locals(case: str, tmp_path: Path) -> None:
    """A constructor of Experiment, OptOuts or Inbox that raises: the traceback with every
    frame's locals (IPython verbose, pytest --showlocals) formats, shows the half-made object,
    and shows no API key."""
    call = _failing_constructors(tmp_path)[case]
    with pytest.raises(smskit.SmskitError) as caught:
        call()
    shown = locals_shown(caught.value)
    assert "self = <" in shown or "self = Experiment(" in shown
    assert KEY not in shown


def test_a_closed_opt_out_list_still_has_a_repr() -> None:
    """An OptOuts after close() (a `with` block left) has a repr saying so, not a raw
    sqlite3 error."""
    with OptOuts(("https://gw.example", "acme")) as listed:
        listed.add(["+33612345678"])
        assert repr(listed) == "<OptOuts https://gw.example login='acme' numbers=1>"
    assert repr(listed) == "<OptOuts https://gw.example login='acme' closed>"


# --- an experiment whose arm is emptied by the opt-out list -------------------------------------


def test_an_arm_emptied_by_opt_outs_is_refused_naming_the_arm(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Every recipient of one arm opted out: the send is refused naming that arm and the
    rule, and no arm sends anything."""
    numbers = [f"+3367200{n:04d}" for n in range(8)]
    with smskit.Client(sandbox=fresh_sandbox) as client:
        experiment = Experiment(
            client, numbers, variants={"A": STOP_TEXT, "B": STOP_TEXT.replace("20", "30")},
            sender="Shop", name="emptied", seed=1, directory=tmp_path,
        )  # fmt: skip
        arms = experiment.assignment()
        OptOuts(client).add(arms.loc[arms["arm"] == "B", "phone_number"].tolist())
        with pytest.raises(ValidationError) as caught:
            experiment.send(progress=False)
    assert caught.value.field == "arm 'B': recipients"
    assert "no recipient can be sent" in str(caught.value)
    assert len(fresh_sandbox.sent()) == 0


def test_compare_before_any_report_warns_how_many_are_pending(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """compare() while no delivery report has arrived (callbacks going nowhere): a
    UserWarning says every recipient sent is still pending, so "0 % delivered" is not read
    as a result."""
    numbers = [f"+3367200{n:04d}" for n in range(12)]
    with smskit.Client(sandbox=fresh_sandbox) as client, Inbox(tmp_path / "in.sqlite") as inbox:
        experiment = Experiment(
            client, numbers, variants={"A": STOP_TEXT, "B": STOP_TEXT.replace("20", "30")},
            sender="Shop", name="early", seed=1, directory=tmp_path,
        )  # fmt: skip
        experiment.send(progress=False)
        with pytest.warns(UserWarning, match=r"12 of the 12 recipient\(s\) sent have no delivery"):
            comparison = experiment.compare(inbox)
    assert comparison.counts["sent"].tolist() == [6, 6]
    assert comparison.counts["delivered"].tolist() == [0, 0]


def test_a_polars_frame_given_to_the_dask_campaign_is_named_as_polars() -> None:
    """smskit.dask.Campaign given a polars DataFrame: refused naming polars' type (not a bare
    'DataFrame', which reads like pandas') and where such a frame goes."""
    import polars as pl

    from smskit.dask import Campaign as DaskCampaign

    frame = pl.DataFrame({"phone_number": ["+33612345678"]})
    with pytest.raises(ValidationError) as caught:
        DaskCampaign(None, frame, text=STOP_TEXT, sender="Shop")
    assert caught.value.field == "recipients"
    assert caught.value.value == "polars.DataFrame"
    assert "smskit.Campaign" in caught.value.rule


# --- two gateways never mix through one inbox ----------------------------------------------------


def test_outcomes_through_another_accounts_inbox_are_refused_not_mixed(tmp_path: Path) -> None:
    """Two sandboxes with one seed issue the same tickets: a campaign sent on A, its outcomes
    asked of the inbox that receives B's callbacks (account=B), is refused naming both
    gateways (it used to show B's reports as A's); B's campaign reads its own; the ledger
    leaves A's outcome columns blank; the file refuses to receive A's callbacks too."""
    numbers = [f"+3367200{n:04d}" for n in range(6)]
    (tmp_path / "journals").mkdir()
    with (
        Sandbox(seed=1) as a,
        Sandbox(seed=1) as b,
        smskit.Client(sandbox=a) as on_a,
        smskit.Client(sandbox=b) as on_b,
        Inbox(tmp_path / "b.sqlite", account=on_b) as inbox,
    ):
        b.set_callback_url(inbox.url)
        sent = {
            name: smskit.Campaign(client, numbers, text=STOP_TEXT, sender="Shop").send(
                progress=False, journal=tmp_path / "journals" / f"{name}.journal.sqlite"
            )
            for name, client in (("a", on_a), ("b", on_b))
        }
        assert sent["a"].chunks()["ticket"].tolist() == sent["b"].chunks()["ticket"].tolist()
        b.wait_for_deliveries(timeout=30)
        assert inbox.account == (b.url, "sandbox")
        assert sent["b"].outcomes(inbox)["status"].ne("pending").all()
        with pytest.raises(smskit.ConfigurationError, match="sent through") as caught:
            sent["a"].outcomes(inbox)
        assert a.url in str(caught.value) and b.url in str(caught.value)
        ledger = smskit.campaigns.history(tmp_path / "journals", inbox=inbox)
    by_journal = ledger.set_index(ledger["journal"].map(lambda p: Path(p).stem.split(".")[0]))
    assert by_journal.loc["b", "reported"] == len(numbers)
    assert by_journal.loc["a", ["reported", "delivered"]].isna().all()
    assert by_journal["problem"].isna().all()
    with pytest.raises(smskit.ConfigurationError, match="one inbox file per account"):
        Inbox(tmp_path / "b.sqlite", account=on_a)


def test_a_journal_in_a_missing_directory_is_refused_naming_it(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """send(journal=) in a missing directory: refused before anything is sent, naming the
    directory (it said "is not an smskit journal", as if a file were damaged)."""
    journal = tmp_path / "missing" / "c.journal.sqlite"
    sent_before = len(sandbox.sent())
    with smskit.Client(sandbox=sandbox) as client:
        campaign = smskit.Campaign(client, ["+33612345678"], text=STOP_TEXT, sender="Shop")
        with pytest.raises(smskit.ConfigurationError) as caught:
            campaign.send(progress=False, journal=journal)
    assert f"its directory {str(journal.parent)!r} does not exist" in str(caught.value)
    assert "not an smskit journal" not in str(caught.value)
    assert len(sandbox.sent()) == sent_before and not journal.parent.exists()


@pytest.mark.parametrize("kind", ["OptOuts", "Inbox", "HLR cache"])
def test_a_store_in_a_missing_directory_is_refused_naming_the_directory(
    kind: str, tmp_path: Path
) -> None:
    """An opt-out list, inbox or HLR cache file in a directory that does not exist: a
    ConfigurationError naming the directory (it said "is not an opt-out list: unable to open
    database file"); nothing is created."""
    from smskit.campaigns.bulk.hlr_cache import HLRCache

    path = tmp_path / "missing" / "store.sqlite"
    opens: dict[str, Callable[[], object]] = {
        "OptOuts": lambda: OptOuts(("https://gw.example", "acme"), path=path),
        "Inbox": lambda: Inbox(path),
        "HLR cache": lambda: HLRCache(path),
    }
    with pytest.raises(smskit.ConfigurationError) as caught:
        opens[kind]()
    assert f"its directory {str(path.parent)!r} does not exist" in str(caught.value)
    assert "not an" not in str(caught.value) and not path.parent.exists()


def _public_classes_with_their_own_repr() -> list[type]:
    """Every public class (smskit, .campaigns, .replies, .dask, .sandbox) that is neither an
    exception nor a dataclass (whose generated __init__ sets every field first) and defines
    a __repr__ somewhere below object."""
    import dataclasses
    import importlib
    import inspect

    found: list[type] = []
    for name in ("smskit", "smskit.campaigns", "smskit.replies", "smskit.dask", "smskit.sandbox"):
        module = importlib.import_module(name)
        for public in module.__all__:
            cls = getattr(module, public)
            if (
                inspect.isclass(cls)
                and not issubclass(cls, BaseException)
                and not dataclasses.is_dataclass(cls)
                and any("__repr__" in vars(k) for k in cls.__mro__[:-1])
                and cls not in found
            ):
                found.append(cls)
    return found


def test_every_public_repr_answers_for_an_object_whose_constructor_raised() -> None:
    """repr() of each public class's instance that no __init__ finished (as a traceback with
    locals shows a constructor's self) is a string naming the class, never an exception."""
    classes = _public_classes_with_their_own_repr()
    assert {c.__name__ for c in classes} >= {"Sandbox", "Campaign", "Composer", "Experiment"}
    # cls.__new__, as a raising __init__ leaves it (a widget's traits set up, so its __del__
    # closes quietly; object.__new__ left them out and the collector printed a TraitError)
    shown = [(cls.__name__, repr(cls.__new__(cls))) for cls in classes]
    assert [(name, text) for name, text in shown if name not in text] == []


def test_secrets_given_to_a_refused_sandbox_or_inbox_are_not_in_its_locals() -> None:
    """Sandbox(api_key=..., login="") and Inbox(signing_secret=..., token=..., <a bad
    option>): the refusal's traceback with locals shows neither the key, the signing secret
    nor the token."""
    secret, token = "s1gning-secret-0123456789abcdef", "t0ken-0123456789abcdef"
    errors = []
    for make in (
        lambda: Sandbox(api_key=KEY, login=""),
        lambda: Inbox(signing_secret=secret, token=token, max_body=1),
        lambda: Inbox(signing_secret=secret, token=token, account=42),  # type: ignore[arg-type]
        lambda: Inbox(signing_secret=secret, token="short"),
    ):
        with pytest.raises(ValueError) as caught:
            make()
        shown = traceback.TracebackException(
            type(caught.value), caught.value, caught.value.__traceback__, capture_locals=True
        )  # smskit's frames only: this test's own locals hold the secrets it passes
        errors.append("".join(str(f.locals) for f in shown.stack if _in_package(f.filename)))
    assert all("'self': '<" in text for text in errors)
    assert [[s for s in (KEY, secret, token) if s in text] for text in errors] == [[]] * 4


@pytest.mark.parametrize("kind", ["directory", "dangling link"])
def test_an_opt_out_list_path_that_is_not_a_file_stops_the_send(
    kind: str, sandbox: Sandbox, user_dirs: Path
) -> None:
    """The account's optouts.sqlite is a directory or a dangling symlink: preflight and
    `smskit send` refuse naming it (exit 3), instead of reading an empty list and sending to
    every listed number (the dry run exited 0 with nothing excluded)."""
    from smskit.replies.optouts import optouts_path

    where = optouts_path()
    where.parent.mkdir(parents=True, exist_ok=True)
    if kind == "directory":
        where.mkdir()
    else:
        where.symlink_to(user_dirs / "unmounted" / "optouts.sqlite")
    with smskit.Client(sandbox=sandbox) as client:
        campaign = smskit.Campaign(client, ["+33612345678"], text=STOP_TEXT, sender="Shop")
        with pytest.raises(smskit.ConfigurationError, match="is not an opt-out list"):
            campaign.preflight()
    env = {
        "SMSKIT_BASE_URL": sandbox.url,
        "SMSKIT_API_LOGIN": sandbox.login,
        "SMSKIT_API_KEY": sandbox.api_key,
    }
    args = ["send", "--text", STOP_TEXT, "--sender", "Shop", "--to", "0612345678", "--dry-run"]
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 3
    assert str(where) in result.output and "is not an opt-out list" in result.output


def test_an_opt_out_list_locked_by_another_process_is_refused_by_name_not_raw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the list's write lock past the busy timeout: add() raises a
    ConfigurationError naming the file (not sqlite3's bare "database is locked"), `smskit
    optouts add` exits 3 saying so, nothing is written; once released, the add goes in."""
    import sqlite3

    import smskit._sqlite

    monkeypatch.setattr(smskit._sqlite, "BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "optouts.sqlite"
    listed = OptOuts(("https://gw.example", "acme"), path=path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(smskit.ConfigurationError) as caught:
            listed.add(["+33612345678"])
        result = run("optouts", "add", "0612345679", "--path", str(path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert f"{str(path)!r} is locked by another process (waited 0.2 s)" in str(caught.value)
    assert result.exit_code == 3 and "is locked by another process" in result.output
    assert len(listed) == 0
    assert listed.add(["+33612345678"]) == 1


def test_a_number_given_twice_to_an_experiment_is_in_one_arm_and_sent_once(
    fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    """Recipients holding numbers twice (the same spelling, or national and E.164): each
    number's rows share one arm, the sandbox receives each number once with one text (rows
    were dealt separately: 7 of 10 numbers got both texts); without repeats the split is
    the plain row deal of assign_arms."""
    from smskit.campaigns.analysis.split import assign_arms

    unique = [f"+3367200{n:04d}" for n in range(10)]
    given = [*unique, *unique, "06 72 00 00 01", "0672000002"]
    variants = {"A": STOP_TEXT, "B": STOP_TEXT.replace("20", "30")}
    with smskit.Client(sandbox=fresh_sandbox) as client:
        experiment = Experiment(client, given, variants=variants, sender="Shop", name="twice",
                                seed=3, directory=tmp_path)  # fmt: skip
        arms = experiment.assignment()["arm"].astype(str).tolist()
        experiment.send(progress=False)
        plain = Experiment(client, unique, variants=variants, sender="Shop", name="plain",
                           seed=3, directory=tmp_path)  # fmt: skip
    by_number = {n: {arms[i] for i, g in enumerate(given) if g.replace(" ", "")[-9:] == n[-9:]}
                 for n in unique}  # fmt: skip
    assert all(len(found) == 1 for found in by_number.values())
    assert sorted(arms[:10].count(a) for a in "AB") == [5, 5]
    sent = fresh_sandbox.sent()
    assert sorted(sent["phone_number"]) == unique
    assert plain.assignment()["arm"].cat.codes.tolist() == assign_arms(10, 2, 3).tolist()


def test_an_opt_out_csv_reads_national_numbers_in_each_rows_country(tmp_path: Path) -> None:
    """optouts import of a CSV with a country column: a national number on a BE row is
    listed as Belgian (it was read in the default region, FR: +33470123456, a valid French
    number, and the Belgian was never excluded); an empty cell takes the default region; a
    country the plan does not know refuses the file naming the row, listing nothing."""
    good = tmp_path / "optouts.csv"
    good.write_text("phone_number,country\n0470 12 34 56,BE\n06 12 34 56 78,\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("phone_number,country\n0612345679,FR\n0470123457,Belgium\n")
    listed = OptOuts(("https://gw.example", "acme"), path=tmp_path / "o.sqlite")
    with pytest.raises(ValidationError) as caught:
        listed.import_csv(bad)
    assert (caught.value.field, caught.value.position) == ("optouts.country", 1)
    assert len(listed) == 0
    assert listed.import_csv(good) == 2
    assert sorted(listed.to_frame()["phone_number"]) == ["+32470123456", "+33612345678"]
    result = run("optouts", "import", str(bad), "--path", str(tmp_path / "o.sqlite"))
    assert result.exit_code == 4 and "optouts[1].country" in result.output


def test_no_stored_file_of_the_after_send_features_holds_the_key(
    tmp_path: Path, user_dirs: Path
) -> None:
    """After an experiment sent with callbacks into a file Inbox(account=), opt-outs listed,
    exported and imported, and the ledger written by `smskit campaign list -o`: no file in
    the data directories or the work directory holds the API key (nor its Basic token)."""
    import base64

    key = "k3y-never-on-disk-0123456789abcdef"
    numbers = [f"+3367200{n:04d}" for n in range(8)]
    with (
        Sandbox(seed=2, api_key=key) as sb,
        smskit.Client("sandbox", key, sb.url) as client,
        Inbox(tmp_path / "inbox.sqlite", account=client) as inbox,
    ):
        sb.set_callback_url(inbox.url)
        listed = OptOuts(client)
        listed.add([numbers[0]])
        experiment = Experiment(
            client, numbers, variants={"A": STOP_TEXT, "B": STOP_TEXT.replace("20", "30")},
            sender="Shop", name="keyless", seed=1,
        )  # fmt: skip
        experiment.send(progress=False)
        sb.wait_for_deliveries(timeout=30)
        experiment.results().outcomes(inbox)
        listed.to_csv(tmp_path / "optouts.csv")
        OptOuts((sb.url, "other"), path=tmp_path / "other.sqlite").import_csv(
            tmp_path / "optouts.csv"
        )
        env = {"SMSKIT_BASE_URL": sb.url, "SMSKIT_API_LOGIN": "sandbox", "SMSKIT_API_KEY": key}
        ledger = CliRunner().invoke(
            cli, ["campaign", "list", "--inbox", str(tmp_path / "inbox.sqlite"), "-o",
                  str(tmp_path / "ledger.csv")], env=env,
        )  # fmt: skip
    assert ledger.exit_code == 0 and (tmp_path / "ledger.csv").stat().st_size > 0
    basic = base64.b64encode(f"sandbox:{key}".encode())
    files = [p for root in (user_dirs, tmp_path) for p in root.rglob("*") if p.is_file()]
    assert any(p.name == "keyless.experiment.json" for p in files)
    assert any(p.name == "optouts.sqlite" for p in files)
    assert [p for p in files if key.encode() in p.read_bytes() or basic in p.read_bytes()] == []


def test_replies_serve_path_that_is_not_an_inbox_exits_4_naming_the_option(
    tmp_path: Path,
) -> None:
    """`smskit replies serve --path FILE` where FILE is no inbox (a text file, an opt-out
    list): input refused, exit 4 naming --path as the other file options do (it was 3), and
    the file left unchanged; nothing listens."""
    text = tmp_path / "notes.sqlite"
    text.write_text("hello\n")
    listed = tmp_path / "optouts.sqlite"
    with OptOuts(("http://127.0.0.1:9", "shop"), path=listed) as made:
        made.add(["+33612345678"])
    before = listed.read_bytes()
    results = [run("replies", "serve", "--path", str(f)) for f in (text, listed)]
    assert [r.exit_code for r in results] == [4, 4]
    assert f"--path {text}: " in results[0].output and "not an inbox file" in results[0].output
    assert f"--path {listed}: " in results[1].output and "other tables" in results[1].output
    assert text.read_text() == "hello\n" and listed.read_bytes() == before


def test_opt_out_csv_paths_are_checked_before_any_file_is_touched(tmp_path: Path) -> None:
    """OptOuts.to_csv into a missing directory is a ConfigurationError naming the directory
    (was a raw OSError), and a path of bytes or a number to to_csv/import_csv is a
    ValidationError naming `path` (was a TypeError)."""
    listed = OptOuts(("http://127.0.0.1:9", "shop"), path=tmp_path / "optouts.sqlite")
    missing = tmp_path / "nowhere" / "list.csv"
    with pytest.raises(smskit.ConfigurationError, match=r"its directory .*nowhere.* does not"):
        listed.to_csv(missing)
    assert not missing.parent.exists()
    for call in (listed.to_csv, listed.import_csv):
        for bad in (b"list.csv", 7):
            with pytest.raises(ValidationError) as caught:
                call(bad)  # type: ignore[arg-type]
            assert caught.value.field == "path"
