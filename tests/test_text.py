"""Tests for smskit.rules.text: every expected number is derived from 3GPP TS 23.038 / 23.040
(160/153 septets, 70/67 UTF-16 units, escape and surrogate pairs never split) or the spec."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smskit.errors import ValidationError
from smskit.rules import gsm as _gsm
from smskit.rules.batch import FEW_TEXTS, analyze_many, estimate, text_figures
from smskit.rules.content import DEFAULT_STOP_MENTION, add_stop_mention, has_stop_mention
from smskit.rules.fields import DYNAMIC_FIELDS, field_texts
from smskit.rules.personalize import MissingFieldWarning, fields, render, render_all
from smskit.rules.text import (
    MAX_FIELD_LENGTH,
    MAX_TEXT_LENGTH,
    OPTIMIZE_TABLE,
    Replacement,
    analyze,
    gsm_capacity,
    optimize,
    validate_text,
)

GREEK_GSM = "ΔΦΓΛΩΠΨΣΘΞ"
GREEK_LOOKALIKES = "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek capitals that look Latin: not in the alphabet
CYR = "ж"  # any BMP character outside GSM-7: one UTF-16 unit
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 2+1+2+1+2 = 8 units, one cluster
FLAG_FR = "\U0001f1eb\U0001f1f7"  # two regional indicators, 4 units, one cluster


# --------------------------------------------------------------------------- tables


def test_default_alphabet_has_128_positions_and_127_characters() -> None:
    """The default alphabet is 128 codes; 0x1B is the escape, not a character."""
    assert len(_gsm.DEFAULT_ALPHABET) == 128
    assert _gsm.DEFAULT_ALPHABET[0x1B] == _gsm.ESCAPE
    assert len(_gsm.DEFAULT_BASIC) == 127


@pytest.mark.parametrize(
    ("code", "char"),
    [
        (0x00, "@"),
        (0x01, "£"),
        (0x02, "$"),
        (0x09, "Ç"),
        (0x0A, "\n"),
        (0x0D, "\r"),
        (0x11, "_"),
        (0x1E, "ß"),
        (0x1F, "É"),
        (0x24, "¤"),
        (0x40, "¡"),
        (0x5F, "§"),
        (0x60, "¿"),
        (0x7F, "à"),
    ],
)
def test_default_alphabet_codes(code: int, char: str) -> None:
    """Spot checks of TS 23.038 §6.2.1 codes that differ from ASCII."""
    assert _gsm.DEFAULT_ALPHABET[code] == char


def test_extension_table_is_the_ten_standard_characters() -> None:
    """The extension table holds FF ^ { } \\ [ ~ ] | € at their codes; CR2/SS2 are unusable."""
    assert dict(_gsm.DEFAULT_EXTENSION) == {
        0x0A: "\f", 0x14: "^", 0x28: "{", 0x29: "}", 0x2F: "\\",
        0x3C: "[", 0x3D: "~", 0x3E: "]", 0x40: "|", 0x65: "€",
    }  # fmt: skip
    assert 0x0D not in _gsm.DEFAULT_EXTENSION
    assert 0x1B not in _gsm.DEFAULT_EXTENSION


@pytest.mark.parametrize("table", [_gsm.TURKISH_LOCKING, _gsm.PORTUGUESE_LOCKING])
def test_national_locking_tables_are_128_distinct_positions(table: str) -> None:
    """Each locking shift table has 128 codes, the escape at 0x1B, no duplicate character."""
    assert len(table) == 128
    assert table[0x1B] == _gsm.ESCAPE
    assert len(_gsm.basic_set(table)) == 127


def test_national_single_shift_tables_keep_the_common_extension_characters() -> None:
    """Every Annex A.2 single shift table repeats the default extension characters."""
    for table in (_gsm.TURKISH_SINGLE, _gsm.SPANISH_SINGLE, _gsm.PORTUGUESE_SINGLE):
        assert set(_gsm.DEFAULT_EXTENSION.items()) <= set(table.items())
        assert 0x0D not in table
        assert 0x1B not in table


def test_the_ten_gsm_greek_capitals_are_gsm7() -> None:
    """Δ Φ Γ Λ Ω Π Ψ Σ Θ Ξ are in the default alphabet: one septet each."""
    stats = analyze(GREEK_GSM)
    assert (stats.encoding, stats.units) == ("GSM-7", 10)


@pytest.mark.parametrize("char", [*GREEK_LOOKALIKES, "α", "µ", "\u2126", "\u2206"])
def test_greek_lookalikes_force_ucs2(char: str) -> None:
    """Greek capitals that look Latin, lower-case Greek, micro, ohm and increment are not GSM-7."""
    stats = analyze("A" + char)
    assert stats.encoding == "UCS-2"
    assert stats.non_gsm == ((1, char),)


@pytest.mark.parametrize("char", list("éèùìòàÉÇÄÖÑÜäöñüÅåÆæØøß"))
def test_accented_letters_in_the_alphabet(char: str) -> None:
    """Accented letters of the default alphabet cost one septet."""
    assert (analyze(char).encoding, analyze(char).units) == ("GSM-7", 1)


@pytest.mark.parametrize("char", list("çáíóúâêîôûëïãõÀÈÊÎÔÙ"))
def test_accented_letters_outside_the_alphabet(char: str) -> None:
    """ç (only Ç is GSM-7), á, â, ê, ë ... force UCS-2."""
    assert analyze(char).encoding == "UCS-2"


# --------------------------------------------------------------------------- GSM-7 segments


@pytest.mark.parametrize(
    ("tables", "concatenated", "septets"),
    [
        (0, False, 160),
        (0, True, 153),
        (1, False, 155),
        (1, True, 149),
        (2, False, 152),
        (2, True, 146),
    ],
)
def test_segment_capacity_follows_the_header_size(
    tables: int, concatenated: bool, septets: int
) -> None:
    """TS 23.040 headers: none, 6 octets (concat), 4/7 (tables), 9/12 (both) octets."""
    assert gsm_capacity(tables, concatenated=concatenated) == septets


@pytest.mark.parametrize(
    ("length", "segments", "remaining"),
    [
        (1, 1, 159),
        (160, 1, 0),
        (161, 2, 2 * 153 - 161),
        (306, 2, 0),
        (307, 3, 3 * 153 - 307),
        (459, 3, 0),
        (460, 4, 4 * 153 - 460),
        (1224, 8, 0),
    ],
)
def test_gsm7_boundaries(length: int, segments: int, remaining: int) -> None:
    """160 septets fit one segment; beyond, 153 per segment (the 6-octet UDH takes 7 septets)."""
    stats = analyze("a" * length)
    assert (stats.encoding, stats.units, stats.segments, stats.remaining) == (
        "GSM-7",
        length,
        segments,
        remaining,
    )
    assert stats.per_segment == (160 if segments == 1 else 153)


def test_empty_text_is_zero_segments() -> None:
    """The empty text needs no segment and leaves a whole one free."""
    stats = analyze("")
    assert (stats.encoding, stats.characters, stats.units, stats.segments) == ("GSM-7", 0, 0, 0)
    assert stats.remaining == 160


def test_extension_characters_cost_two_septets() -> None:
    """Each of the ten extension characters is an escape plus a code."""
    text = "".join(_gsm.DEFAULT_EXTENSION.values())
    stats = analyze(text)
    assert (stats.encoding, stats.characters, stats.units) == ("GSM-7", 10, 20)


def test_80_brackets_fill_one_segment_and_81_need_two() -> None:
    """80 x ']' is 160 septets (one segment); one more character makes it concatenated."""
    assert analyze("]" * 80).segments == 1
    assert analyze("]" * 80 + "a").segments == 2


def test_153_brackets_need_three_segments() -> None:
    """153 x ']' is 306 septets, but 76 pairs fill 152 of 153 septets: 76 + 76 + 1 pairs."""
    stats = analyze("]" * 153)
    assert (stats.units, stats.segments, stats.remaining) == (306, 3, 153 - 2)


def test_extension_character_at_position_153_moves_to_the_next_segment() -> None:
    """A € whose escape would be septet 153 and code septet 154 goes whole into segment 2."""
    stats = analyze("a" * 152 + "€" + "a" * 10)
    assert (stats.units, stats.segments, stats.remaining) == (164, 2, 153 - (2 + 10))
    # 306 septets would fit two segments if the pair could be split; it cannot
    assert analyze("a" * 152 + "€" + "a" * 152).segments == 3


def test_crlf_is_two_septets_and_may_be_split() -> None:
    """CR and LF are two GSM-7 characters; 158 + CRLF is exactly one segment."""
    assert analyze("a" * 158 + "\r\n").segments == 1
    stats = analyze("a" * 152 + "\r\n" + "a" * 10)
    assert (stats.units, stats.segments, stats.remaining) == (164, 2, 153 - 11)


@pytest.mark.parametrize("char", ["\t", "\u00a0", "\x1b", "\x00", "`"])
def test_tab_nbsp_escape_nul_backtick_are_not_gsm7(char: str) -> None:
    """Tab, no-break space, a literal ESC, NUL and the backtick have no GSM-7 code."""
    assert analyze("ab" + char).non_gsm == ((2, char),)


def test_line_feed_carriage_return_form_feed() -> None:
    """LF and CR are in the alphabet (1 septet); form feed is in the extension table (2)."""
    assert analyze("a\nb\rc").units == 5
    assert analyze("a\fb").units == 4


# --------------------------------------------------------------------------- UCS-2 segments


def test_one_curly_quote_turns_one_segment_into_three() -> None:
    """150 GSM-7 characters plus ’ is 151 UTF-16 units: ceil(151 / 67) = 3 segments."""
    assert analyze("a" * 150).segments == 1
    stats = analyze("a" * 150 + "\u2019")
    assert (stats.encoding, stats.units, stats.segments) == ("UCS-2", 151, 3)
    assert stats.non_gsm == ((150, "\u2019"),)


@pytest.mark.parametrize(
    ("length", "segments"), [(70, 1), (71, 2), (134, 2), (135, 3), (201, 3), (202, 4)]
)
def test_ucs2_boundaries(length: int, segments: int) -> None:
    """70 units fit one segment; beyond, 67 per segment."""
    stats = analyze(CYR * length)
    assert (stats.encoding, stats.units, stats.segments) == ("UCS-2", length, segments)
    assert stats.per_segment == (70 if segments == 1 else 67)
    assert stats.remaining == stats.per_segment * segments - length


def test_emoji_are_two_units() -> None:
    """35 emoji are 70 units (one segment); 36 are 72 units: 33 + 3 emoji."""
    assert analyze("😀" * 35).segments == 1
    stats = analyze("😀" * 36)
    assert (stats.characters, stats.units, stats.segments) == (36, 72, 2)
    assert stats.remaining == 67 - 6


def test_emoji_at_a_boundary_is_not_split() -> None:
    """An emoji at units 67-68 moves whole to the next segment: 66 + 2 + 66 is 3 segments."""
    stats = analyze(CYR * 66 + "😀" + CYR * 10)
    assert (stats.units, stats.segments, stats.remaining) == (78, 2, 67 - 12)
    assert analyze(CYR * 66 + "😀" + CYR * 66).segments == 3  # 134 units, yet not 2


def test_zwj_family_is_kept_in_one_segment() -> None:
    """An 8-unit ZWJ family starting at unit 63 moves whole: 62 | 8 + 59 | 1 = 3 segments."""
    stats = analyze(CYR * 62 + FAMILY + CYR * 60)
    assert (stats.units, stats.segments, stats.remaining) == (130, 3, 66)


def test_flag_is_kept_in_one_segment() -> None:
    """A flag (two regional indicators) at units 66-69 moves whole to segment 2."""
    stats = analyze(CYR * 65 + FLAG_FR + CYR * 10)
    assert (stats.units, stats.segments, stats.remaining) == (79, 2, 67 - 14)


def test_combining_accent_stays_with_its_letter() -> None:
    """'e' + U+0301 at units 67-68 is one cluster: it moves whole."""
    stats = analyze(CYR * 66 + "e\u0301" + CYR * 10)
    assert (stats.segments, stats.remaining) == (2, 67 - 12)


def test_crlf_stays_together_in_ucs2() -> None:
    """In UCS-2, CR LF is one grapheme cluster: it is not split across segments."""
    stats = analyze(CYR * 66 + "\r\n" + CYR * 10)
    assert (stats.segments, stats.remaining) == (2, 67 - 12)


def test_cluster_longer_than_a_segment_is_cut() -> None:
    """'a' + 100 combining marks (101 units) cannot fit one segment: cut between code points."""
    stats = analyze("a" + "\u0301" * 100)
    assert (stats.units, stats.segments, stats.remaining) == (101, 2, 2 * 67 - 101)


# --------------------------------------------------------------------------- national tables


def test_turkish_text_fits_gsm7_with_the_turkish_locking_shift() -> None:
    """ı ş ğ force UCS-2 by default; the Turkish locking table encodes them in one septet."""
    text = "Işık ağış çok güzel"
    assert analyze(text).encoding == "UCS-2"
    stats = analyze(text, national="tr")
    assert (stats.encoding, stats.units, stats.locking_shift) == ("GSM-7", len(text), "tr")
    assert stats.per_segment == 155  # 160 - ceil(8 * (1 + 3) / 7)


def test_one_table_costs_five_septets_per_segment() -> None:
    """With one shift table a segment holds 155 septets alone, 149 concatenated."""
    assert analyze("ı" * 155, national="tr").segments == 1
    stats = analyze("ı" * 156, national="tr")
    assert (stats.segments, stats.per_segment, stats.remaining) == (2, 149, 2 * 149 - 156)


def test_spanish_single_shift_costs_two_septets_per_letter() -> None:
    """Spanish has no locking table (A.3.2 is void); á í ó ú are single shift: 2 septets."""
    text = "¿Qué tal? Mañana a las 10, llámame"
    stats = analyze(text, national="es")
    assert (stats.encoding, stats.single_shift, stats.locking_shift) == ("GSM-7", "es", None)
    assert stats.units == len(text) + 1  # one á


def test_two_tables_cost_eight_septets_per_segment() -> None:
    """ª needs the Portuguese locking table and Φ its single shift table: 152/146 septets."""
    stats = analyze("1ª Φ", national="pt")
    assert (stats.locking_shift, stats.single_shift, stats.per_segment) == ("pt", "pt", 152)
    assert stats.units == 5  # Φ is in the single shift table: 2 septets
    assert analyze("ª" + "Φ" * 76, national="pt").segments == 2  # 1 + 152 = 153 > 152
    assert analyze("ª" + "Φ" * 76, national="pt").per_segment == 146


def test_national_tables_are_off_by_default_and_not_used_when_useless() -> None:
    """A default-alphabet text gets no shift table (no header cost) even with national=."""
    stats = analyze("a" * 160, national="tr")
    assert (stats.segments, stats.per_segment, stats.locking_shift, stats.single_shift) == (
        1,
        160,
        None,
        None,
    )


def test_unknown_national_language_is_an_error() -> None:
    """national= accepts only the languages with Annex A tables implemented."""
    with pytest.raises(ValidationError) as err:
        analyze("a", national="fr")
    assert err.value.field == "national"


# --------------------------------------------------------------------------- validation


def test_validate_text_limits() -> None:
    """The gateway accepts 1 to 1224 characters (code points), so 1224 emoji pass."""
    assert validate_text("a" * MAX_TEXT_LENGTH) == "a" * MAX_TEXT_LENGTH
    assert validate_text("😀" * MAX_TEXT_LENGTH)
    for bad in ("", "a" * (MAX_TEXT_LENGTH + 1)):
        with pytest.raises(ValidationError) as err:
            validate_text(bad)
        assert (err.value.field, err.value.rule) == ("text", "must be 1 to 1224 characters")


def test_analyze_still_analyses_texts_over_the_limit() -> None:
    """analyze counts a 1530-character text (10 x 153) without refusing it."""
    assert analyze("a" * 1530).segments == 10


@pytest.mark.parametrize("bad", [None, 42, b"bytes", ["a"]])
def test_non_strings_are_a_clear_error(bad: object) -> None:
    """A non-str text is a ValidationError naming the field and the rule."""
    with pytest.raises(ValidationError) as err:
        analyze(bad)  # type: ignore[arg-type]
    assert (err.value.field, err.value.rule) == ("text", "must be a string")


def test_lone_surrogate_is_a_clear_error_with_its_position() -> None:
    """A lone surrogate cannot be sent; the error says where it is."""
    with pytest.raises(ValidationError) as err:
        analyze("ab\ud83d")
    assert (err.value.field, err.value.position) == ("text", 2)


# --------------------------------------------------------------------------- optimize


def test_every_optimize_replacement_is_gsm7() -> None:
    """Each table entry replaces a non-GSM-7 character by GSM-7 text."""
    for char, replacement in OPTIMIZE_TABLE.items():
        assert analyze(char).encoding == "UCS-2", char
        assert analyze(replacement).encoding == "GSM-7", char


def test_optimize_typography() -> None:
    """Curly quotes, guillemets, dashes and the ellipsis become their GSM-7 forms."""
    result = optimize("It\u2019s \u201cgreat\u201d \u2013 \u00abvraiment\u00bb\u2026")
    assert result.text == 'It\'s "great" - "vraiment"...'


def test_optimize_reports_what_it_saved() -> None:
    """150 letters and one ’ go from 3 UCS-2 segments to 1 GSM-7 segment: 2 saved."""
    result = optimize("a" * 150 + "\u2019")
    assert (result.segments_before, result.segments_after, result.saved) == (3, 1, 2)
    assert result.replacements == (Replacement(150, "\u2019", "'"),)
    assert result.original == "a" * 150 + "\u2019"


def test_optimize_spaces() -> None:
    """Runs of spaces, tabs and no-break spaces become one space; edges and line ends are
    trimmed; zero-width spaces, BOM and soft hyphens are dropped; CRLF becomes LF."""
    assert optimize("  a \u00a0\t b\u200bc\ufeff \r\n  d\u00ad  ").text == "a bc\nd"


def test_optimize_leaves_emoji_sequences_and_accents_alone() -> None:
    """ZWJ sequences and accented letters are content, not look-alikes."""
    text = f"Famille {FAMILY} fête"
    result = optimize(text)
    assert (result.text, result.replacements, result.saved) == (text, (), 0)


def test_optimize_greek_lookalikes_and_c_cedilla() -> None:
    """Greek Alpha/Beta become Latin A/B, the GSM-7 Gamma stays, ç becomes Ç (code 0x09)."""
    assert optimize("\u0391\u0392\u0393 ça").text == "ABΓ Ça"


def test_optimize_unchanged_gsm7_text() -> None:
    """A clean GSM-7 text comes back as it was, with nothing reported."""
    result = optimize("Hello Ann, -20% today. STOP au 36173")
    assert (result.text, result.replacements) == ("Hello Ann, -20% today. STOP au 36173", ())


# --------------------------------------------------------------------------- personalisation


def test_dynamic_fields_are_the_specs() -> None:
    """The gateway's dynamic fields: first/last name and param1..param5, 50 chars each."""
    assert ("first_name", "last_name", *(f"param{i}" for i in range(1, 6))) == DYNAMIC_FIELDS
    assert MAX_FIELD_LENGTH == 50


def test_fields_in_order_of_first_use() -> None:
    """fields() lists each field once, in the order the template first uses it."""
    template = "Hi {last_name} {first_name}, code {param1} ({first_name})"
    assert fields(template) == ("last_name", "first_name", "param1")


def test_non_identifier_braces_are_text() -> None:
    """'{ first_name }', '{1}' and a lone brace are literal text, not fields."""
    assert fields("{ first_name } {1} { } {") == ()


def test_unknown_field_is_an_error_naming_it() -> None:
    """{prenom} is not a gateway field: the error names it and where it is."""
    with pytest.raises(ValidationError) as err:
        fields("Bonjour {prenom}")
    assert err.value.field == "text"
    assert err.value.position == 8
    assert "{prenom}" in str(err.value)


def test_render_replaces_fields() -> None:
    """Each field takes the recipient's value; numbers are written plainly."""
    recipient = {"first_name": "Léa", "param1": 42, "param2": 1234.0, "param3": 9.5}
    assert render("{first_name}: {param1} {param2} {param3}", recipient) == "Léa: 42 1234 9.5"


def test_render_missing_values_are_empty() -> None:
    """An absent key, None and NaN render as the empty string."""
    template = "[{first_name}|{last_name}|{param1}]"
    assert render(template, {"last_name": None, "param1": float("nan")}) == "[||]"


def test_render_does_not_render_values_again() -> None:
    """A value that looks like a field is inserted as text, not expanded."""
    assert render("{first_name}", {"first_name": "{last_name}", "last_name": "X"}) == (
        "{last_name}"
    )


def test_render_value_limit() -> None:
    """50 characters pass; 51 are a ValidationError naming the field."""
    assert render("{param1}", {"param1": "x" * 50}) == "x" * 50
    with pytest.raises(ValidationError) as err:
        render("{param1}", {"param1": "x" * 51})
    assert err.value.field == "param1"


def test_render_all_keeps_the_index_and_names_the_bad_row() -> None:
    """render_all keeps a DataFrame's index; a long value names recipients[row].field."""
    frame = pd.DataFrame({"first_name": ["Ann", "Bob"]}, index=[10, 20])
    out = render_all("Hi {first_name}", frame)
    assert out.tolist() == ["Hi Ann", "Hi Bob"]
    assert out.index.tolist() == [10, 20]
    frame.loc[20, "first_name"] = "B" * 51
    with pytest.raises(ValidationError) as err:
        render_all("Hi {first_name}", frame)
    assert err.value.field == "recipients[1].first_name"


def test_render_all_counts_rows_from_start() -> None:
    """start= names rows of a slice as rows of the whole input; it must be a row number."""
    frame = pd.DataFrame({"first_name": ["Ann", "B" * 51]})
    with pytest.raises(ValidationError) as err:
        render_all("Hi {first_name}", frame, start=40)
    assert err.value.field == "recipients[41].first_name"
    for start in (-1, True, 1.0):
        with pytest.raises(ValidationError, match="start"):
            render_all("Hi {first_name}", frame.iloc[:1], start=start)  # type: ignore[arg-type]


def test_render_all_reports_missing_values() -> None:
    """Missing values render empty and one MissingFieldWarning names the field and rows."""
    with pytest.warns(MissingFieldWarning, match=r"\{first_name\} missing for 2 recipient"):
        out = render_all("Hi {first_name}", [{"first_name": "Ann"}, {}, "+33612345678"])
    assert out.tolist() == ["Hi Ann", "Hi ", "Hi "]


def test_render_all_reads_a_single_number_or_dict_like_send() -> None:
    """One number or one dict is one recipient, as for send; a set is refused, naming it."""
    assert render_all("Hi", "+33612345678").tolist() == ["Hi"]
    assert render_all("Hi {first_name}", {"first_name": "Ann"}).tolist() == ["Hi Ann"]
    with pytest.raises(ValidationError) as err:
        render_all("Hi", {"+33612345678"})
    assert err.value.field == "recipients"


# --------------------------------------------------------------------------- STOP rule


@pytest.mark.parametrize(
    "text", ["STOP au 36173", "Promo! STOP: 36173", "(STOP)", "stop? STOP", "Fin\nSTOP"]
)
def test_stop_mention_present(text: str) -> None:
    """The upper-case word STOP anywhere counts."""
    assert has_stop_mention(text)


@pytest.mark.parametrize(
    "text", ["stop au 36173", "Stop", "STOPPED", "NONSTOP", "STOP_SMS", "STOP36173", ""]
)
def test_stop_mention_absent(text: str) -> None:
    """Lower or mixed case, or STOP inside a longer word, does not count."""
    assert not has_stop_mention(text)


def test_add_stop_mention() -> None:
    """The default mention goes on a new line, once; a custom mention is used as given."""
    assert DEFAULT_STOP_MENTION == "STOP au 36173"
    assert add_stop_mention("Promo -20%  ") == "Promo -20%\nSTOP au 36173"
    assert add_stop_mention("Promo. STOP au 36173") == "Promo. STOP au 36173"
    assert add_stop_mention("Promo", mention="STOP SMS 36180") == "Promo\nSTOP SMS 36180"
    assert add_stop_mention("") == "STOP au 36173"
    assert analyze(DEFAULT_STOP_MENTION).encoding == "GSM-7"


def test_add_stop_mention_refuses_a_mention_without_stop() -> None:
    """A mention that would not satisfy the STOP rule is refused."""
    with pytest.raises(ValidationError) as err:
        add_stop_mention("Promo", mention="Unsubscribe: 36173")
    assert err.value.field == "mention"


# --------------------------------------------------------------------------- vectorised

CASES = [
    "",
    "a",
    "a" * 160,
    "a" * 161,
    "a" * 306,
    "a" * 307,
    "]" * 80,
    "]" * 81,
    "]" * 153,
    "a" * 152 + "€" + "a" * 152,
    "a" * 152 + "\r\n" + "a" * 10,
    "Léa, -20% €",
    "a" * 150 + "\u2019",
    CYR * 70,
    CYR * 71,
    CYR * 66 + "😀" + CYR * 66,
    "😀" * 36,
    CYR * 62 + FAMILY + CYR * 60,
    CYR * 65 + FLAG_FR + CYR * 10,
    CYR * 66 + "e\u0301" + CYR * 10,
    CYR * 66 + "\r\n" + CYR * 10,
    "a" + "\u0301" * 100,
    "Ça va ? \u00e7a va",
    "\t",
    "a" * 1300,
    "한국어 " * 30,
    "\u0915\u094d\u0937" * 40,
]


def test_analyze_many_equals_analyze() -> None:
    """Every vectorised row equals the per-text analysis."""
    frame = analyze_many(CASES)
    for i, text in enumerate(CASES):
        stats = analyze(text)
        row = frame.iloc[i]
        assert (row.encoding, row.characters, row.units, row.segments, row.remaining) == (
            stats.encoding,
            stats.characters,
            stats.units,
            stats.segments,
            stats.remaining,
        ), text


_TEXT_PARTS = st.sampled_from(
    ["Bonjour ", "é", "€", "{", "^", "’", "ж", "😀", FAMILY, "\udc00", "a" * 150, "\n", ""]
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_TEXT_PARTS, max_size=12).map("".join), max_size=20))
def test_text_figures_of_a_few_texts_equal_the_numpy_paths(texts: list[str]) -> None:
    """A few texts analysed one by one give analyze_many's encoding, characters and segments
    (nulls as -1, 0, 0), lone surrogates and empty texts included."""
    few = text_figures(texts)
    padding = ["x"] * (FEW_TEXTS + 1)  # past FEW_TEXTS: the numpy path
    many = text_figures(texts + padding)
    for mine, theirs in zip(few, many, strict=True):
        assert mine.tolist() == theirs[: len(texts)].tolist()
        assert mine.dtype == theirs.dtype


def test_analyze_many_flags_bad_rows_without_raising() -> None:
    """None, non-str and lone surrogates get null numbers and a rule; too long is flagged."""
    texts = pd.Series(["ok", None, 7, "x\udc00", "", "a" * 1225], index=list("abcdef"))
    frame = analyze_many(texts)
    assert frame.index.tolist() == list("abcdef")
    assert pd.isna(frame["error"].iloc[0])
    assert frame["error"].tolist()[1:] == [
        "must be a string",
        "must be a string",
        "must not contain lone surrogates",
        "must be 1 to 1224 characters",
        "must be 1 to 1224 characters",
    ]
    assert frame["segments"].isna().tolist() == [False, True, True, True, False, False]
    assert frame["segments"].iloc[5] == math.ceil(1225 / 153)


def test_analyze_many_columns_and_types() -> None:
    """Closed sets are categoricals; counts are nullable integers."""
    frame = analyze_many(["a", "ж"])
    assert list(frame.columns) == [
        "encoding",
        "characters",
        "units",
        "segments",
        "remaining",
        "error",
    ]
    assert list(frame["encoding"].cat.categories) == ["GSM-7", "UCS-2"]
    assert str(frame["segments"].dtype) == "Int64"


def test_analyze_many_national() -> None:
    """national= gives the same numbers as analyze(national=...)."""
    frame = analyze_many(["ı" * 156, "plain"], national="tr")
    assert frame["segments"].tolist() == [2, 1]


def test_analyze_many_refuses_a_single_string() -> None:
    """Passing one text instead of a list is a clear error, not 1 row per character."""
    with pytest.raises(ValidationError):
        analyze_many("hello")


def test_analyze_many_empty_input() -> None:
    """No texts give an empty frame with the same columns."""
    frame = analyze_many([])
    assert len(frame) == 0
    assert "segments" in frame.columns


# --------------------------------------------------------------------------- estimate


def test_estimate_totals() -> None:
    """Per-recipient segments add up; worst case and recipients per segment count follow."""
    template = "Bonjour {first_name}, " + "a" * 130
    recipients = [{"first_name": "Ann"}, {"first_name": "Jean-Baptiste"}, {"first_name": "Zoë"}]
    # 143 and 153 septets: one segment each; ë forces UCS-2: 143 units, ceil(143/67) = 3
    result = estimate(template, recipients)
    assert result.messages["segments"].tolist() == [1, 1, 3]
    assert (result.total_segments, result.worst_case, result.recipients) == (5, 3, 3)
    assert result.by_segments.to_dict() == {1: 2, 3: 1}


def test_estimate_optimizes_like_the_gateway() -> None:
    """By default the rendered text is optimised first, as auto_optimize_text does."""
    template = "a" * 150 + "\u2019{first_name}"
    assert estimate(template, [{"first_name": "A"}]).total_segments == 1
    assert estimate(template, [{"first_name": "A"}], auto_optimize_text=False).total_segments == 3


def test_estimate_reports_missing_values() -> None:
    """Missing values are listed by row and field."""
    result = estimate("Hi {first_name} {param1}", [{"first_name": "A", "param1": "x"}, {}])
    assert result.missing.to_dict("records") == [
        {"row": 1, "field": "first_name"},
        {"row": 1, "field": "param1"},
    ]


def test_estimate_from_a_dataframe_flags_texts_over_the_limit() -> None:
    """A DataFrame of recipients works; a rendered text over 1224 characters is flagged."""
    frame = pd.DataFrame(
        {"phone_number": ["+33600000001", "+33600000002"], "param1": ["x", "y" * 50]}
    )
    result = estimate("a" * 1180 + "{param1}", frame)
    assert result.messages["characters"].tolist() == [1181, 1230]
    assert result.messages["error"].isna().tolist() == [True, False]
    assert result.messages["segments"].tolist() == [8, 9]  # ceil(1181/153), ceil(1230/153)


def test_analyze_many_on_a_pandas_string_series_with_missing_values() -> None:
    """A missing value in a pandas string Series is a flagged row, not a crash."""
    frame = analyze_many(pd.Series(["a", None], dtype="str"))
    assert frame["segments"].isna().tolist() == [False, True]
    assert frame["error"].iloc[1] == "must be a string"


def test_two_lone_surrogates_are_not_an_emoji() -> None:
    """A high and a low surrogate stored as two code points are flagged, in any storage width."""
    texts = ["\ud83d\ude00", "€\ud83d\ude00", "😀\ud83d\ude00", "x\ud83d"]
    frame = analyze_many(texts)
    assert frame["error"].tolist() == ["must not contain lone surrogates"] * 4
    with pytest.raises(ValidationError):
        analyze("\ud83d\ude00")


def test_field_texts_renders_values_as_messages_do():
    """field_texts gives each value's text as rendering would: gaps empty, 1234.0 as 1234."""
    present = [1234.0, 12.5, "Zoé", 7, True]
    expected = ["", "", "", "1234", "12.5", "Zoé", "7", "True"]
    assert field_texts([None, float("nan"), pd.NA, *present]) == expected
    assert field_texts(present) == [render("{param1}", {"param1": v}) for v in present]
