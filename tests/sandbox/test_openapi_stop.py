"""The STOP rule and the OpenAPI document's STOP pattern give the same answer on every text.

schemathesis decides whether a generated send is "schema-valid" with its own validator
(jsonschema_rs, fancy-regex); the sandbox refuses with code 121 by
:func:`smskit.rules.content.has_stop_mention`. When the two read a word boundary differently
(Python's unicode ``\\b`` counts '¼' as a letter, Rust's does not) the fuzzer finds a text one
accepts and the other refuses, once in a while. These properties aim straight at that class:
STOP glued to letters, numbers, marks and connectors from all of Unicode.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import jsonschema_rs
from hypothesis import example, given
from hypothesis import strategies as st
from schemathesis.core.jsonschema import make_validator_for

from smskit.rules.content import STOP_MENTION_PATTERN, has_stop_mention
from smskit.sandbox._openapi import openapi_document


def _marketing_text_schema() -> Any:
    """The schema the document gives ``text`` when the send is marketing (not an alert)."""
    send = openapi_document()["components"]["schemas"]["SendRequest"]
    (text_schema,) = [
        part["else"]["properties"]["text"]
        for part in send["allOf"]
        if "text" in part.get("else", {}).get("properties", {})
    ]
    return text_schema


TEXT_SCHEMA = _marketing_text_schema()
SCHEMATHESIS = make_validator_for(TEXT_SCHEMA)
RUST_DEFAULT = jsonschema_rs.validator_for(TEXT_SCHEMA)
PYTHON_JSONSCHEMA = jsonschema.Draft202012Validator(TEXT_SCHEMA)

# Characters that some engine or other counts as part of a word, from all of Unicode.
WORDISH = st.characters(categories=["L", "N", "M", "Pc"])
ANY_CHAR = st.characters(exclude_categories=["Cs"])
NEIGHBOUR = st.one_of(WORDISH, ANY_CHAR, st.sampled_from("AZaz09_ '.:(\n"))
AROUND = st.text(NEIGHBOUR, max_size=3)


def test_the_document_uses_the_rule_module_pattern() -> None:
    """The document's pattern is the rule module's constant, not a second spelling of it."""
    assert TEXT_SCHEMA == {"type": "string", "pattern": STOP_MENTION_PATTERN}


@given(before=AROUND, after=AROUND, extra=st.text(ANY_CHAR, max_size=6))
@example(before="", after="¼'…", extra="")  # the text the fuzzer once sent (refused by 121)
@example(before="é", after="", extra="")
@example(before="", after="\u0301", extra="")  # a combining mark
@example(before="", after="\n", extra="")  # Python's $ also matches before a final newline
@example(before="NON", after="", extra=" STOP")
def test_rule_and_every_validator_agree_on_stop_next_to_unicode(
    before: str, after: str, extra: str
) -> None:
    """has_stop_mention == schemathesis' validator == jsonschema_rs == python-jsonschema."""
    text = f"{before}STOP{after}{extra}"
    rule = has_stop_mention(text)
    assert SCHEMATHESIS.is_valid(text) is rule, text
    assert RUST_DEFAULT.is_valid(text) is rule, text
    assert PYTHON_JSONSCHEMA.is_valid(text) is rule, text


NO_STOP_LETTERS = st.text(NEIGHBOUR.filter(lambda c: c not in "STOP"), max_size=3)


@given(before=NO_STOP_LETTERS, after=NO_STOP_LETTERS)
def test_the_rule_is_the_ascii_word_boundary(before: str, after: str) -> None:
    """STOP counts exactly when no ASCII letter, digit or underscore touches it (ECMA's \\b)."""
    glued = re.compile(r"[A-Za-z0-9_]")
    touches = bool(before and glued.fullmatch(before[-1])) or bool(
        after and glued.fullmatch(after[0])
    )
    assert has_stop_mention(f"{before}STOP{after}") is not touches, (before, after)


def test_named_cases() -> None:
    """The fuzzer's text and the documented examples, by hand."""
    assert has_stop_mention("STOP¼'…")
    assert has_stop_mention("Répondez STOP au 36173")
    assert has_stop_mention("STOPé")
    assert not has_stop_mention("NONSTOP")
    assert not has_stop_mention("STOP_SMS")
    assert not has_stop_mention("STOP2")
    assert not has_stop_mention("Stop")
