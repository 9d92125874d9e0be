"""smskit.replies: the opt-out rule, the Inbox receiver over real HTTP, and the reply analytics."""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.replies.analytics import link_replies, opt_out_rate, replies_per_period, reply_rate
from smskit.replies.inbox import FRAME_COLUMNS, MAX_BODY, Inbox, is_opt_out
from smskit.replies.receiver import Malformed, parse_callback
from smskit.rules.content import has_stop_mention
from smskit.sandbox._callbacks import ANSWER_TEXTS, OPT_OUT_TEXTS

FR = "+33612345678"


def callback(message_id: str = "r1", **fields: Any) -> dict[str, Any]:
    """A spec callback body (message_id, number, text, sim_card_number, reception_date)."""
    body = {"message_id": message_id, "number": FR, "text": "OUI",
            "sim_card_number": "38100", "reception_date": "2025-03-01T10:15:00+00:00"}  # fmt: skip
    return {**body, **fields}


@pytest.fixture
def inbox() -> Iterator[Inbox]:
    """A running in-memory inbox."""
    with Inbox() as box:
        yield box


@pytest.fixture
def post(inbox: Inbox) -> Iterator[Any]:
    """POST to the inbox URL (or another one) with a plain httpx client."""
    with httpx.Client(trust_env=False, timeout=10) as client:

        def send(body: Any = None, *, url: str | None = None, **options: Any) -> httpx.Response:
            if body is not None:
                options["json"] = body
            return client.post(url or inbox.url, **options)

        yield send


# --- the opt-out rule ------------------------------------------------------------------------

OPT_OUTS = [
    "STOP", "stop", "Stop", "STOP SMS", "stop!", "Stop.", "STOP_SMS", "STOPSMS", "stopall",
    "ARRET", "arrêt", "Arrêtez svp", "arrêter les sms", "Unsubscribe", "unsubscribe me",
    "please unsubscribe", "Désabonner", "désabonnez-moi", "DESINSCRIPTION", "opt out",
    "Opt-out", "optout", "END", "quit", "Cancel", "  fin  ", "Merci, stop.", "ＳＴＯＰ",
]  # fmt: skip
NOT_OPT_OUTS = [
    "OUI", "Yes please", "Info stp", "nonstop", "stopped by yesterday", "the end of the sale?",
    "I want to cancel my order", "Combien ?", "", "fin de série ?", "Opt in", "Non merci",
]  # fmt: skip


@pytest.mark.parametrize("text", OPT_OUTS)
def test_stop_and_variants_are_opt_outs(text: str) -> None:
    """STOP in any case, arrêt, unsubscribe, désabonner, opt out, lone END/QUIT... ask to stop."""
    assert is_opt_out(text)


@pytest.mark.parametrize("text", NOT_OPT_OUTS)
def test_other_replies_are_not_opt_outs(text: str) -> None:
    """stp (please), words containing stop, END/CANCEL inside a sentence do not opt out."""
    assert not is_opt_out(text)


@given(st.text())
def test_the_outbound_stop_mention_always_counts_as_opt_out(text: str) -> None:
    """More lenient than the outbound rule: every text with a STOP mention opts out."""
    if has_stop_mention(text):
        assert is_opt_out(text)


def test_opt_out_needs_a_string() -> None:
    """A non-string reply text is a ValidationError naming text."""
    with pytest.raises(ValidationError, match="text"):
        is_opt_out(None)  # type: ignore[arg-type]


def test_scripted_sandbox_texts_agree_with_the_rule() -> None:
    """The sandbox's demo opt-out texts all opt out; its ordinary answers never do."""
    assert all(is_opt_out(t) for t in OPT_OUT_TEXTS)
    assert not any(is_opt_out(t) for t in ANSWER_TEXTS)


# --- the receiver ----------------------------------------------------------------------------


def test_url_carries_an_unguessable_token_and_repr_hides_it(inbox: Inbox) -> None:
    """url is /callbacks/<32+ url-safe chars>/inbound on loopback; repr masks the token."""
    match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/callbacks/([\w-]{32,})/inbound", inbox.url)
    assert match is not None
    token = match.group(2)
    assert token not in repr(inbox) and "/callbacks/***/inbound" in repr(inbox)
    with Inbox() as other:
        assert token not in other.url


def test_url_needs_a_started_inbox() -> None:
    """Before start() there is no URL: a clear RuntimeError, not a wrong address."""
    with pytest.raises(RuntimeError, match="start"):
        _ = Inbox().url


def test_reply_is_stored_and_answered_200_with_empty_body(inbox: Inbox, post: Any) -> None:
    """A spec body gets 200 and an empty body; to_frame holds its fields, dates as UTC."""
    answer = post(callback())
    assert (answer.status_code, answer.content) == (200, b"")
    frame = inbox.to_frame()
    assert list(frame.columns) == list(FRAME_COLUMNS)
    row = frame.iloc[0]
    assert (row["message_id"], row["number"], row["text"], row["sim_card_number"]) == (
        "r1", FR, "OUI", "38100"
    )  # fmt: skip
    assert row["reception_date"] == pd.Timestamp("2025-03-01 10:15:00", tz="UTC")
    assert isinstance(frame["reception_date"].dtype, pd.DatetimeTZDtype)
    assert isinstance(frame["received_at"].dtype, pd.DatetimeTZDtype)
    assert frame["is_opt_out"].dtype == bool and not row["is_opt_out"]


def test_empty_inbox_frame_has_the_typed_columns(inbox: Inbox) -> None:
    """No reply yet: an empty frame with the same columns and datetime dtypes."""
    frame = inbox.to_frame()
    assert frame.empty and list(frame.columns) == list(FRAME_COLUMNS)
    assert isinstance(frame["reception_date"].dtype, pd.DatetimeTZDtype)
    assert inbox.opt_outs() == []


def test_same_message_id_is_stored_once(inbox: Inbox, post: Any) -> None:
    """A retried callback (same message_id) answers 200 and keeps the first copy only."""
    assert post(callback("r1")).status_code == 200
    assert post(callback("r1", text="changed")).status_code == 200
    assert post(callback("r2")).status_code == 200
    frame = inbox.to_frame()
    assert frame["message_id"].tolist() == ["r1", "r2"]
    assert frame["text"].tolist() == ["OUI", "OUI"]
    assert inbox.stats() == {"stored": 2, "duplicates": 1, "rejected": 0, "unsaved": 0,
                             "delivery_reports": 0, "stops": 0, "report_duplicates": 0,
                             "links": 0, "clicks": 0, "unknown_link_requests": 0,
                             "clicks_unsaved": 0}  # fmt: skip


def test_wrong_token_and_other_paths_are_404_and_store_nothing(inbox: Inbox, post: Any) -> None:
    """Only the exact callback URL is served: a wrong token or any other path is 404."""
    base, _, _ = inbox.url.partition("/callbacks/")
    token = inbox.url.split("/")[-2]
    # The last character swapped for one it cannot be, whatever the token ends with.
    other = token[:-1] + ("y" if token.endswith("x") else "x")
    assert other != token
    wrong = [
        f"{base}/callbacks/{other}/inbound",
        f"{base}/callbacks/{token[:-1]}/inbound",
        f"{base}/callbacks/{token}/outbound",
        f"{base}/callbacks/{token}",
        f"{base}/",
    ]
    for url in wrong:
        answer = post(callback(), url=url)
        assert (answer.status_code, answer.content) == (404, b""), url
    assert len(inbox) == 0 and inbox.rejects().empty


def test_other_methods_on_the_url_are_405(inbox: Inbox) -> None:
    """GET on the callback URL is 405 (POST only); nothing is stored."""
    answer = httpx.get(inbox.url, trust_env=False)
    assert (answer.status_code, answer.headers["allow"]) == (405, "POST")
    assert len(inbox) == 0


MALFORMED = [
    (b"not json", "body"),
    (b"\xff\xfe{}", "body"),
    (b"[1, 2]", "body"),
    (b'{"number": "+33612345678", "text": "hi", "reception_date": "2025-03-01T10:00:00Z"}',
     "message_id"),
    (b'{"message_id": "x", "number": " ", "text": "hi", "reception_date": "2025-03-01"}',
     "number"),
    (b'{"message_id": "x", "number": "+33612345678", "text": 5, "reception_date": "2025-03-01"}',
     "text"),
    (b'{"message_id": "x", "number": "+33612345678", "text": "hi", "reception_date": "soon"}',
     "reception_date"),
    (b'{"message_id": true, "number": "+33612345678", "text": "hi", "reception_date": 0}',
     "message_id"),
    (b'{"message_id": "x", "number": "+33612345678", "text": "hi", "reception_date": 1e300}',
     "reception_date"),
    (b'{"message_id": "x", "number": "+33612345678", "text": "hi", "reception_date": NaN}',
     "reception_date"),
]  # fmt: skip


def test_malformed_bodies_get_200_and_are_kept_as_rejects(
    inbox: Inbox, post: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The spec wants 200 even on error: bad bodies are answered 200 empty, kept and logged."""
    caplog.set_level(logging.WARNING, logger="smskit.replies.inbox")
    for raw, _ in MALFORMED:
        answer = post(content=raw)
        assert (answer.status_code, answer.content) == (200, b"")
    assert len(inbox) == 0
    rejects = inbox.rejects()
    assert [reason.split(":")[0] for reason in rejects["reason"]] == [f for _, f in MALFORMED]
    assert rejects["size"].tolist() == [len(raw) for raw, _ in MALFORMED]
    assert rejects["body"].iloc[0] == "not json"
    logged = [r.getMessage() for r in caplog.records if r.name == "smskit.replies.inbox"]
    assert len(logged) == len(MALFORMED) and "message_id" in logged[3]
    assert inbox.stats()["rejected"] == len(MALFORMED)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
SPEC_FIELDS = ("message_id", "number", "text", "sim_card_number", "reception_date")


@given(st.dictionaries(st.sampled_from(SPEC_FIELDS), JSON_VALUES) | JSON_VALUES)
def test_any_json_body_is_either_a_reply_or_a_named_reject(body: Any) -> None:
    """Whatever JSON arrives, parsing gives a reply or a reject naming a field (never a 500)."""
    raw = json.dumps(body).encode()
    try:
        reply = parse_callback(raw)
    except Malformed as exc:
        assert str(exc).split(":")[0] in {"body", *SPEC_FIELDS}
    else:
        assert reply.message_id.strip() and reply.number.strip()
        assert isinstance(reply.text, str) and isinstance(reply.reception_us, int)


def test_oversized_body_is_refused_and_the_receiver_keeps_working(inbox: Inbox, post: Any) -> None:
    """Over 64 KiB (declared or streamed) is not stored but kept as a reject (size only); the
    answer is still 200 (spec rule 1) and later replies land."""
    assert MAX_BODY == 64 * 1024
    padded = callback(text="x" * MAX_BODY)
    assert post(padded).status_code == 200
    chunks = (b" " * 8192 for _ in range(9))  # 72 KiB without a Content-Length
    assert post(content=chunks).status_code == 200
    assert len(inbox) == 0
    assert post(callback("after")).status_code == 200
    assert inbox.to_frame()["message_id"].tolist() == ["after"]
    rejects = inbox.rejects()
    assert rejects["reason"].tolist() == [f"body over {MAX_BODY} bytes"] * 2
    assert rejects["body"].isna().all()


def test_exactly_the_limit_is_accepted(inbox: Inbox, post: Any) -> None:
    """A body of exactly max_body bytes is read (the limit is inclusive)."""
    small = Inbox(max_body=2048)
    with small:
        body = httpx.Request("POST", small.url, json=callback()).content
        padded = body[:-1] + b" " * (2048 - len(body)) + b"}"
        assert len(padded) == 2048
        assert httpx.post(small.url, content=padded, trust_env=False).status_code == 200
        assert httpx.post(small.url, content=padded + b" ", trust_env=False).status_code == 200
        assert len(small) == 1 and len(small.rejects()) == 1


def test_max_body_is_validated() -> None:
    """A limit under 1 KiB (or not an int) is refused, naming max_body."""
    with pytest.raises(ValidationError, match="max_body"):
        Inbox(max_body=100)


def test_lenient_field_forms(inbox: Inbox, post: Any) -> None:
    """Integer ids and short numbers become strings; naive dates are UTC; Z, space, Unix time."""
    post(callback(7, sim_card_number=38100, reception_date="2025-03-01 10:15:00"))
    post(callback("z", reception_date="2025-03-01T11:15:00Z"))
    post(callback("off", reception_date="2025-03-01T13:15:00+02:00"))
    post(callback("unix", reception_date=1_740_827_700))  # 2025-03-01T11:15:00Z
    post(callback("nosim", sim_card_number=None))
    frame = inbox.to_frame().set_index("message_id")
    assert frame.loc["7", "sim_card_number"] == "38100"
    assert frame.loc["7", "reception_date"] == pd.Timestamp("2025-03-01T10:15:00Z")
    for message_id in ("z", "off", "unix"):
        assert frame.loc[message_id, "reception_date"] == pd.Timestamp("2025-03-01T11:15:00Z")
    assert pd.isna(frame.loc["nosim", "sim_card_number"])


def test_frame_is_ordered_by_reception_date(inbox: Inbox, post: Any) -> None:
    """Whatever the arrival order, to_frame sorts by reception_date (then message_id)."""
    post(callback("late", reception_date="2025-03-02T09:00:00Z"))
    post(callback("early", reception_date="2025-03-01T09:00:00Z"))
    assert inbox.to_frame()["message_id"].tolist() == ["early", "late"]


def test_opt_outs_lists_each_number_once_first_asker_first(inbox: Inbox, post: Any) -> None:
    """opt_outs(): numbers whose reply opts out, deduplicated, ordered by first opt-out."""
    post(callback("a", number="+33600000002", text="STOP", reception_date="2025-03-01T12:00Z"))
    post(callback("b", number="+33600000001", text="arrêt", reception_date="2025-03-01T11:00Z"))
    post(callback("c", number="+33600000002", text="stop", reception_date="2025-03-01T13:00Z"))
    post(callback("d", number="+33600000003", text="OUI"))
    assert inbox.opt_outs() == ["+33600000001", "+33600000002"]
    assert inbox.to_frame()["is_opt_out"].tolist() == [False, True, True, True]


def test_wait_returns_the_count_or_times_out(inbox: Inbox, post: Any) -> None:
    """wait(n) returns once n replies are stored; TimeoutError says how many arrived."""
    assert inbox.wait(0, timeout=0) == 0
    with pytest.raises(TimeoutError, match="0 of 1 replies"):
        inbox.wait(1, timeout=0.05)
    sender = threading.Thread(target=lambda: [post(callback(f"w{i}")) for i in range(3)])
    sender.start()
    assert inbox.wait(3, timeout=10) == 3
    sender.join()
    with pytest.raises(ValidationError, match="n"):
        inbox.wait(-1)


def test_an_infinite_timeout_waits_for_ever(inbox: Inbox, post: Any) -> None:
    """wait(n, timeout=math.inf), which checked_seconds takes, waits until the nth reply
    (threading's own wait refuses so long a timeout with an OverflowError)."""
    sender = threading.Thread(target=lambda: (time.sleep(0.2), post(callback("inf"))))
    sender.start()
    assert inbox.wait(1, timeout=math.inf) == 1
    sender.join()


def test_file_inbox_keeps_replies_and_its_url_across_runs(tmp_path: Path) -> None:
    """With a path, replies survive a restart, and so does the URL registered with the gateway."""
    path = tmp_path / "replies.sqlite"
    with Inbox(path) as first:
        httpx.post(first.url, json=callback("kept"), trust_env=False)
        first_url = first.url
    assert first.to_frame()["message_id"].tolist() == ["kept"]  # readable after stop
    with Inbox(str(path)) as second:
        assert second.url == first_url  # same token, same port: the gateway's setting holds
        assert len(second) == 1 and second.wait(1, timeout=0) == 1
        assert httpx.post(first_url, json=callback("new"), trust_env=False).status_code == 200
        assert second.to_frame()["message_id"].tolist() == ["kept", "new"]


def test_file_inbox_whose_port_is_taken_moves_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The remembered port in use by someone else: another port, same token, a warning."""
    path = tmp_path / "replies.sqlite"
    with Inbox(path) as first:
        old_url = first.url
    with Inbox() as squatter, caplog.at_level(logging.WARNING, logger="smskit.replies.inbox"):
        squatter.port = int(old_url.split(":")[2].split("/")[0])
        squatter.stop()
        squatter.start()  # now serving on the remembered port
        with Inbox(path) as second:
            assert second.url != old_url
            assert second.url.split("/")[-2] == old_url.split("/")[-2]
    assert any("callback URL changes" in r.getMessage() for r in caplog.records)


def test_memory_inboxes_get_a_fresh_token_each_and_token_can_be_given(tmp_path: Path) -> None:
    """Without a file each inbox draws its own token; token= fixes it and is validated."""
    with Inbox() as a, Inbox() as b:
        assert a.url.split("/")[-2] != b.url.split("/")[-2]
    given_token = "t" * 20
    with Inbox(token=given_token) as fixed:
        assert fixed.url.endswith(f"/callbacks/{given_token}/inbound")
    for bad in ("short", "has/slash" * 3, 123):
        with pytest.raises(ValidationError, match="token"):
            Inbox(token=bad)  # type: ignore[arg-type]


# --- analytics -------------------------------------------------------------------------------


def replies_frame(*rows: tuple[str, str, str]) -> pd.DataFrame:
    """A replies frame shaped like Inbox.to_frame() from (number, text, ISO time) rows."""
    return pd.DataFrame(
        {
            "message_id": [f"m{i}" for i in range(len(rows))],
            "number": [r[0] for r in rows],
            "text": [r[1] for r in rows],
            "sim_card_number": "38100",
            "reception_date": pd.to_datetime([r[2] for r in rows], utc=True),
        }
    )


def test_replies_per_hour_fill_gaps_and_count_opt_outs() -> None:
    """Counts per hour from the first to the last period, empty hours as 0."""
    frame = replies_frame(
        (FR, "OUI", "2025-03-01T10:05Z"), (FR, "STOP", "2025-03-01T10:40Z"),
        (FR, "Merci", "2025-03-01T12:00Z"),
    )  # fmt: skip
    hourly = replies_per_period(frame, "h")
    expected_index = pd.date_range("2025-03-01T10:00Z", periods=3, freq="h", name="period")
    pd.testing.assert_index_equal(hourly.index, expected_index, check_exact=True)
    assert hourly["replies"].tolist() == [2, 0, 1]
    assert hourly["opt_outs"].tolist() == [1, 0, 0]
    assert replies_per_period(frame)["replies"].tolist() == [3]  # one day


def test_replies_per_local_day_after_tz_convert() -> None:
    """A reply at 23:30 UTC counts on the next day once reception_date is in Paris time."""
    frame = replies_frame((FR, "OUI", "2025-03-01T23:30Z"), (FR, "OUI", "2025-03-01T10:00Z"))
    paris = frame.assign(reception_date=frame["reception_date"].dt.tz_convert("Europe/Paris"))
    daily = replies_per_period(paris, "D")
    assert [d.isoformat() for d in daily.index] == [
        "2025-03-01T00:00:00+01:00", "2025-03-02T00:00:00+01:00"
    ]  # fmt: skip
    assert daily["replies"].tolist() == [1, 1]


def test_replies_per_period_validates_its_input() -> None:
    """An unknown frequency or a frame without reception_date is refused, naming the field."""
    with pytest.raises(ValidationError, match="freq"):
        replies_per_period(replies_frame((FR, "OUI", "2025-03-01T10:00Z")), "fortnight")
    with pytest.raises(ValidationError, match=r"replies.*reception_date"):
        replies_per_period(pd.DataFrame({"text": ["x"]}))


def sends_frame(*rows: tuple[str, str, str | None], sender: str = "38100") -> pd.DataFrame:
    """A sends frame like Sandbox.sent(): (ticket, phone_number, sent_at) rows."""
    return pd.DataFrame(
        {
            "sms_ticket": [r[0] for r in rows],
            "phone_number": [r[1] for r in rows],
            "sent_at": pd.to_datetime([r[2] for r in rows], utc=True),
            "sender": sender,
            "with_replies": True,
        }
    )


def tickets(linked: pd.DataFrame) -> list[str | None]:
    """The ticket column with missing values as None."""
    return [None if pd.isna(t) else t for t in linked["ticket"]]


def test_reply_links_to_the_latest_send_before_it() -> None:
    """Same number sent A at 10:00 and B at 12:00: 11:00 -> A, 13:00 -> B, 09:00 -> none."""
    sends = sends_frame(("A", FR, "2025-03-01T10:00Z"), ("B", FR, "2025-03-01T12:00Z"))
    replies = replies_frame(
        (FR, "x", "2025-03-01T11:00Z"), (FR, "y", "2025-03-01T13:00Z"),
        (FR, "z", "2025-03-01T09:00Z"),
    )  # fmt: skip
    assert tickets(link_replies(replies, sends)) == ["A", "B", None]


def test_linking_compares_digits_and_the_short_number() -> None:
    """0033.. matches +33..; a reply to another short number, or to a plain send, is unlinked."""
    sends = pd.concat(
        [
            sends_frame(("A", "+33600000001", "2025-03-01T10:00Z")),
            sends_frame(("B", "+33600000002", "2025-03-01T10:00Z")).assign(with_replies=False),
            sends_frame(("C", "+33600000003", None)),  # scheduled, not sent yet
        ]
    )
    replies = replies_frame(
        ("0033600000001", "x", "2025-03-01T11:00Z"), ("+33600000002", "y", "2025-03-01T11:00Z"),
        ("+33600000003", "z", "2025-03-01T11:00Z"),
    )  # fmt: skip
    assert tickets(link_replies(replies, sends)) == ["A", None, None]
    elsewhere = replies.assign(sim_card_number="38200")
    assert tickets(link_replies(elsewhere, sends)) == [None, None, None]
    unknown_sim = replies.assign(sim_card_number=None)
    assert tickets(link_replies(unknown_sim, sends)) == ["A", None, None]


def test_without_send_times_the_last_send_of_the_number_wins() -> None:
    """A frame of (ticket, phone_number) only, e.g. a campaign result: the last row counts."""
    sends = pd.DataFrame({"ticket": ["A", "B"], "phone_number": [FR, FR]})
    replies = replies_frame((FR, "x", "2025-03-01T11:00Z"))
    assert tickets(link_replies(replies, sends)) == ["B"]
    with pytest.raises(ValidationError, match=r"sends.*ticket"):
        link_replies(replies, pd.DataFrame({"phone_number": [FR]}))


def test_reply_rate_per_ticket() -> None:
    """A: 4 recipients, 2 repliers (one twice, one STOP); B: 2 recipients, 1 replier."""
    numbers = [f"+3360000000{i}" for i in range(6)]
    sends = sends_frame(
        *[("A", n, "2025-03-01T10:00Z") for n in numbers[:4]],
        *[("B", n, "2025-03-01T10:00Z") for n in numbers[4:]],
    )
    replies = replies_frame(
        (numbers[0], "OUI", "2025-03-01T10:10Z"), (numbers[0], "Merci", "2025-03-01T10:20Z"),
        (numbers[1], "STOP", "2025-03-01T10:30Z"), (numbers[4], "Yes", "2025-03-01T11:00Z"),
        ("+33699999999", "?", "2025-03-01T11:00Z"),  # nobody sent to this number
    )  # fmt: skip
    table = reply_rate(replies, sends)
    assert table.index.tolist() == ["A", "B"]
    assert table.loc["A", ["recipients", "replies", "repliers", "opt_outs"]].tolist() == [
        4,
        3,
        2,
        1,
    ]
    assert table.loc["B", ["recipients", "replies", "repliers", "opt_outs"]].tolist() == [
        2,
        1,
        1,
        0,
    ]
    assert table["reply_rate"].tolist() == [2 / 4, 1 / 2]
    assert table["opt_out_rate"].tolist() == [1 / 4, 0 / 2]
    assert opt_out_rate(replies, sends) == 1 / 6
    assert pd.isna(opt_out_rate(replies, sends.iloc[0:0]))
