"""A name that names a file (a campaign's journal, an experiment's arm) follows one rule,
``smskit.rules.filenames.checked_file_name``, held here to a character-by-character reading
of the rule as the docs state it; a refusal names the field, the position and the rule."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from smskit.campaigns.analysis.split import check_arms
from smskit.campaigns.planning.plan import check_name
from smskit.errors import ValidationError
from smskit.rules.filenames import checked_file_name

ASCII_ALNUM = string.ascii_letters + string.digits


def follows_rule(name: str, longest: int, dots: bool) -> bool:
    """The rule in words: 1 to ``longest`` characters, ASCII letters, digits, '_' or '-'
    (and '.' when ``dots``), the first a letter or digit."""
    allowed = ASCII_ALNUM + ("._-" if dots else "_-")
    return (
        1 <= len(name) <= longest
        and name[0] in ASCII_ALNUM
        and all(character in allowed for character in name)
    )


NAMES = st.text(alphabet=st.sampled_from([*"aZ09._-/ \n", "é", "٣", "\x00"]), max_size=40)


@given(name=NAMES, longest=st.integers(1, 35), dots=st.booleans())
def test_a_name_is_kept_exactly_when_it_follows_the_rule(
    name: str, longest: int, dots: bool
) -> None:
    if follows_rule(name, longest, dots):
        assert checked_file_name("name", name, longest=longest, dots=dots, names="x") == name
    else:
        with pytest.raises(ValidationError):
            checked_file_name("name", name, longest=longest, dots=dots, names="x")


def test_a_campaign_name_may_hold_a_dot_an_arm_name_may_not() -> None:
    assert check_name("june.promo") == "june.promo"
    assert check_name("a" * 100) == "a" * 100
    with pytest.raises(ValidationError, match=r"^name: 1 to 100 characters: letters, digits, "):
        check_name("a" * 101)
    with pytest.raises(ValidationError) as refused:
        check_arms({"control": "A", "b.1": "B"})
    assert refused.value.field == "variants"
    assert refused.value.position == 1
    assert refused.value.value == "b.1"
    assert "1 to 30 characters: letters, digits, '_' or '-'" in refused.value.rule
    assert "(it names the arm's journal)" in refused.value.rule


@pytest.mark.parametrize("value", [None, 7, b"june", "", "-june", ".hidden", "../escape"])
def test_what_is_no_file_name_is_refused_with_the_rule(value: object) -> None:
    with pytest.raises(ValidationError) as refused:
        check_name(value)
    assert refused.value.field == "name"
    assert refused.value.rule.endswith("(it names the journal file)")
