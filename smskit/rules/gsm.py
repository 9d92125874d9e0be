"""GSM 7-bit alphabets of 3GPP TS 23.038: the default alphabet, its extension table, and the
Turkish, Spanish and Portuguese national language shift tables of Annex A.

Tables are written as 128-position strings (locking shift / default alphabet) or as
``{code: char}`` maps (single shift / extension), so each entry can be checked against the
standard by its code. Position 0x1B of every table is the escape to the single shift table;
it stands here as ``"\\x1b"`` and is never an encodable character. Positions 0x0D (CR2) and
0x1B (SS2) of the single shift tables have no character and are treated as unusable.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

ESCAPE: Final = "\x1b"

# TS 23.038 §6.2.1, rows 0x00..0x7F, sixteen positions a line.
DEFAULT_ALPHABET: Final = (
    "@£$¥èéùìòÇ\nØø\rÅå"
    "Δ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ"
    " !\"#¤%&'()*+,-./"
    "0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNO"
    "PQRSTUVWXYZÄÖÑÜ§"
    "¿abcdefghijklmno"
    "pqrstuvwxyzäöñüà"
)

# TS 23.038 §6.2.1.1: reached with ESC + code; each costs two septets.
DEFAULT_EXTENSION: Final = MappingProxyType(
    {
        0x0A: "\f",
        0x14: "^",
        0x28: "{",
        0x29: "}",
        0x2F: "\\",
        0x3C: "[",
        0x3D: "~",
        0x3E: "]",
        0x40: "|",
        0x65: "€",
    }
)

# Annex A.3.1: Turkish locking shift table.
TURKISH_LOCKING: Final = (
    "@£$¥€éùıòÇ\nĞğ\rÅå"
    "Δ_ΦΓΛΩΠΨΣΘΞ\x1bŞşßÉ"
    " !\"#¤%&'()*+,-./"
    "0123456789:;<=>?"
    "İABCDEFGHIJKLMNO"
    "PQRSTUVWXYZÄÖÑÜ§"
    "çabcdefghijklmno"
    "pqrstuvwxyzäöñüà"
)

# Annex A.3.3: Portuguese locking shift table (A.3.2, Spanish, is void in the standard).
PORTUGUESE_LOCKING: Final = (
    "@£$¥êéúíóç\nÔô\rÁá"
    "Δ_ªÇÀ∞^\\€Ó|\x1bÂâÊÉ"
    " !\"#º%&'()*+,-./"
    "0123456789:;<=>?"
    "ÍABCDEFGHIJKLMNO"
    "PQRSTUVWXYZÃÕÚÜ§"
    "~abcdefghijklmno"
    "pqrstuvwxyzãõ`üà"
)

# Annex A.2.1: Turkish single shift table.
TURKISH_SINGLE: Final = MappingProxyType(
    {
        **DEFAULT_EXTENSION,  # the default extension table is in every national one
        0x47: "Ğ",
        0x49: "İ",
        0x53: "Ş",
        0x63: "ç",
        0x67: "ğ",
        0x69: "ı",
        0x73: "ş",
    }
)

# Annex A.2.2: Spanish single shift table.
SPANISH_SINGLE: Final = MappingProxyType(
    {
        **DEFAULT_EXTENSION,  # the default extension table is in every national one
        0x09: "ç",
        0x41: "Á",
        0x49: "Í",
        0x4F: "Ó",
        0x55: "Ú",
        0x61: "á",
        0x69: "í",
        0x6F: "ó",
        0x75: "ú",
    }
)

# Annex A.2.3: Portuguese single shift table.
PORTUGUESE_SINGLE: Final = MappingProxyType(
    {
        **DEFAULT_EXTENSION,  # the default extension table is in every national one
        0x05: "ê",
        0x09: "ç",
        0x0B: "Ô",
        0x0C: "ô",
        0x0E: "Á",
        0x0F: "á",
        0x12: "Φ",
        0x13: "Γ",
        0x15: "Ω",
        0x16: "Π",
        0x17: "Ψ",
        0x18: "Σ",
        0x19: "Θ",
        0x1F: "Ê",
        0x41: "À",
        0x49: "Í",
        0x4F: "Ó",
        0x55: "Ú",
        0x5B: "Ã",
        0x5C: "Õ",
        0x61: "Â",
        0x69: "í",
        0x6F: "ó",
        0x75: "ú",
        0x7B: "ã",
        0x7C: "õ",
        0x7F: "â",
    }
)


def basic_set(table: str) -> frozenset[str]:
    """The characters a 128-position table encodes in one septet (the escape excluded)."""
    return frozenset(ch for ch in table if ch != ESCAPE)


DEFAULT_BASIC: Final = basic_set(DEFAULT_ALPHABET)
DEFAULT_EXT: Final = frozenset(DEFAULT_EXTENSION.values())

# language -> (locking shift table or None, single shift table or None)
NATIONAL_TABLES: Final = MappingProxyType(
    {
        "tr": (TURKISH_LOCKING, TURKISH_SINGLE),
        "es": (None, SPANISH_SINGLE),
        "pt": (PORTUGUESE_LOCKING, PORTUGUESE_SINGLE),
    }
)
