"""Write ``contacts.csv``: a messy contact file of about 2,000 rows for the HLR notebook.

Deterministic from ``--seed`` with the standard library only (no numbering metadata), so the
committed CSV is reproduced byte for byte (``tests/test_contacts_data.py``). The mess is the
one real exports hold: national and international spellings, separators, ``00`` and dropped
``+`` prefixes, foreign numbers in national form with a country hint, landlines, toll-free
and drama numbers, invalid and blank values, and the same person entered twice.
"""

from __future__ import annotations

import argparse
import csv
import io
import random
from collections.abc import Callable
from pathlib import Path

DEFAULT_SEED = 2024
DEFAULT_ROWS = 2000
HERE = Path(__file__).resolve().parent

# country -> (calling code, trunk prefix, share of the file)
COUNTRIES: dict[str, tuple[str, str, float]] = {
    "FR": ("33", "0", 0.58),
    "BE": ("32", "0", 0.08),
    "DE": ("49", "0", 0.08),
    "GB": ("44", "0", 0.07),
    "ES": ("34", "", 0.06),
    "IT": ("39", "", 0.05),
    "CH": ("41", "0", 0.04),
    "US": ("1", "", 0.04),
}

# National significant numbers (no trunk prefix) per country and line kind: a prefix, then
# random digits. Chosen inside ranges every numbering plan assigns to that kind.
PLANS: dict[str, dict[str, list[tuple[str, int]]]] = {
    "FR": {
        "mobile": [*((f"6{d}", 7) for d in "012345678"), *((f"7{d}", 7) for d in "345678")],
        "landline": [("1", 8), ("2", 8), ("3", 8), ("4", 8), ("5", 8)],
        "toll_free": [("800", 6)],
    },
    "BE": {
        "mobile": [("47", 7), ("48", 7), ("49", 7)],
        "landline": [("2", 7), ("3", 7)],
        "toll_free": [("800", 5)],
    },
    "DE": {
        "mobile": [("151", 8), ("160", 7), ("170", 7), ("171", 7), ("176", 8)],
        "landline": [("30", 8), ("89", 8), ("40", 8)],
        "toll_free": [("800", 7)],
    },
    "GB": {
        "mobile": [("74", 8), ("75", 8), ("78", 8), ("79", 8)],
        "landline": [("207", 7), ("208", 7), ("161", 7)],
        "toll_free": [("800", 7)],
        "drama": [("7700900", 3)],
    },
    "ES": {
        "mobile": [("6", 8)],
        "landline": [("91", 7), ("93", 7)],
        "toll_free": [("900", 6)],
    },
    "IT": {
        "mobile": [("32", 8), ("33", 8), ("34", 8), ("38", 8)],
        "landline": [("06", 8), ("02", 8)],
        "toll_free": [("800", 6)],
    },
    "CH": {
        "mobile": [("76", 7), ("77", 7), ("78", 7), ("79", 7)],
        "landline": [("21", 7), ("22", 7), ("44", 7)],
        "toll_free": [("800", 6)],
    },
    "US": {
        "mobile": [("212", -1), ("415", -1), ("617", -1), ("305", -1)],
        "landline": [("312", -1), ("202", -1)],
        "toll_free": [("800", -1)],
        "drama": [("55501", 2)],
    },
}

# Line kinds of a valid row, with their weights.
KINDS = (("mobile", 0.86), ("landline", 0.10), ("toll_free", 0.02), ("drama", 0.02))
# Share of rows that are broken in some way, and of people entered a second time.
BAD_SHARE = 0.04
BLANK_SHARE = 0.015
DUPLICATE_SHARE = 0.07

FIRST_NAMES: dict[str, list[str]] = {
    "FR": ["Camille", "Léa", "Manon", "Chloé", "Inès", "Hugo", "Lucas", "Louis", "Jules",
           "Gabriel", "Arthur", "Emma", "Zoé", "Théo", "Nathan", "Élodie", "Benoît", "Sophie"],
    "BE": ["Lotte", "Noor", "Wout", "Arne", "Élise", "Maxime", "Julie", "Thomas"],
    "DE": ["Lukas", "Leonie", "Jonas", "Mia", "Felix", "Hannah", "Jürgen", "Sabine"],
    "GB": ["Oliver", "Amelia", "Harry", "Isla", "George", "Ava", "Jack", "Olivia"],
    "ES": ["Lucía", "Hugo", "Martina", "Mateo", "Sofía", "Álvaro", "Paula", "Javier"],
    "IT": ["Giulia", "Francesco", "Sofia", "Alessandro", "Aurora", "Lorenzo", "Chiara"],
    "CH": ["Noah", "Mia", "Luca", "Lea", "Elias", "Lina", "Matteo", "Anna"],
    "US": ["Liam", "Olivia", "Ethan", "Emma", "Mason", "Sophia", "Logan", "Ava"],
}  # fmt: skip
LAST_NAMES: dict[str, list[str]] = {
    "FR": ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand",
           "Leroy", "Moreau", "Simon", "Laurent", "Lefèvre", "Michel", "Garcia", "Faure"],
    "BE": ["Peeters", "Janssens", "Maes", "Jacobs", "Dupont", "Lambert", "Willems"],
    "DE": ["Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner"],
    "GB": ["Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Evans"],
    "ES": ["García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez"],
    "IT": ["Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo"],
    "CH": ["Müller", "Meier", "Schmid", "Keller", "Weber", "Huber", "Favre"],
    "US": ["Johnson", "Miller", "Davis", "Anderson", "Jackson", "White", "Harris"],
}  # fmt: skip

# Values nobody can text, as they appear in exports.
BAD_VALUES = (
    "n/a", "unknown", "-", "0", "123", "06 12 34", "+33 6 12 34 5", "06 12 34 56 78 90",
    "+33 6 12 34 56 78 99", "0612 AB 5678", "+999 1234 5678", "00000000", "+33 0 00 00 00 00",
    "tel: voir email", "06-XX-XX-XX-XX", "+49 123", "+44 7", "#N/A",
)  # fmt: skip
FIELDS = ("contact_id", "first_name", "last_name", "country", "phone_number")


def national_number(rng: random.Random, country: str, kind: str) -> str:
    """A national significant number of ``kind`` in ``country`` (no trunk prefix)."""
    prefix, digits = rng.choice(PLANS[country][kind])
    if digits < 0:  # NANP: area code, exchange 2-9xx (never 555, 911-style), line
        exchange = f"{rng.randint(2, 9)}{rng.randint(0, 9)}{rng.randint(1, 9)}"
        exchange = "556" if exchange == "555" else exchange
        return f"{prefix}{exchange}{rng.randint(0, 9999):04d}"
    if country == "US" and kind == "drama":
        return f"{rng.choice(['212', '312', '415'])}{prefix}{rng.randint(0, 99):02d}"
    return prefix + "".join(str(rng.randint(0, 9)) for _ in range(digits))


def _groups(digits: str, sizes: tuple[int, ...]) -> list[str]:
    parts, start = [], 0
    for size in sizes:
        if start >= len(digits):
            break
        parts.append(digits[start : start + size])
        start += size
    if start < len(digits):
        parts.append(digits[start:])
    return parts


def spell(rng: random.Random, country: str, nsn: str, hinted: bool) -> str:
    """One way a person or a CRM may have typed this number."""
    code, trunk, _ = COUNTRIES[country]
    national = trunk + nsn
    pairs = " ".join(_groups(nsn[1:], (2, 2, 2, 2, 2)))
    styles: list[Callable[[], str]] = [
        lambda: f"+{code}{nsn}",
        lambda: f"+{code} {nsn[:1]} {pairs}",
        lambda: f"00{code}{nsn}",
        lambda: f"00 {code} {nsn[:3]} {nsn[3:6]} {nsn[6:]}",
        lambda: f"{code}{nsn}",  # a spreadsheet dropped the "+"
    ]
    if trunk:
        styles.append(lambda: f"+{code} ({trunk}){nsn}")
    if hinted or country == "FR":
        styles += [
            lambda: national,
            lambda: " ".join(_groups(national, (2, 2, 2, 2, 2, 2))),
            lambda: ".".join(_groups(national, (2, 2, 2, 2, 2, 2))),
            lambda: "-".join(_groups(national, (3, 3, 4, 4))),
        ]
    if country == "FR":
        styles += [lambda: national, lambda: national, lambda: nsn]  # nsn: Excel ate the 0
    if country == "US":
        styles += [
            lambda: f"({nsn[:3]}) {nsn[3:6]}-{nsn[6:]}",
            lambda: f"1-{nsn[:3]}-{nsn[3:6]}-{nsn[6:]}",
            lambda: f"+1 {nsn[:3]} {nsn[3:6]} {nsn[6:]}",
        ]
    value = rng.choice(styles)()
    return f" {value}" if rng.random() < 0.02 else value  # stray blanks from copy-paste


def _pick(rng: random.Random, weighted: list[tuple[str, float]] | tuple) -> str:
    names = [name for name, _ in weighted]
    weights = [weight for _, weight in weighted]
    return rng.choices(names, weights=weights)[0]


def make_rows(seed: int = DEFAULT_SEED, rows: int = DEFAULT_ROWS) -> list[dict[str, str]]:
    """The contact rows (shuffled), ``contact_id`` 1..rows."""
    rng = random.Random(seed)
    people = round(rows / (1 + DUPLICATE_SHARE))
    countries = [(name, share) for name, (_, _, share) in COUNTRIES.items()]
    records: list[dict[str, str]] = []
    for _ in range(people):
        country = _pick(rng, countries)
        kinds = [(k, w) for k, w in KINDS if k in PLANS[country]]
        kind = _pick(rng, kinds)
        first = rng.choice(FIRST_NAMES[country])
        last = rng.choice(LAST_NAMES[country])
        hinted = country == "FR" or rng.random() < 0.6
        roll = rng.random()
        if roll < BLANK_SHARE:
            phone, nsn = "", ""
        elif roll < BLANK_SHARE + BAD_SHARE:
            phone, nsn = rng.choice(BAD_VALUES), ""
        else:
            nsn = national_number(rng, country, kind)
            phone = spell(rng, country, nsn, hinted)
        hint = country if hinted and rng.random() < 0.93 else ""
        records.append(
            {"first_name": first, "last_name": last, "country": hint,
             "phone_number": phone, "_nsn": nsn, "_country": country}
        )  # fmt: skip
    valid = [record for record in records if record["_nsn"]]
    for record in rng.sample(valid, rows - people):
        twin = dict(record)
        twin["phone_number"] = spell(rng, record["_country"], record["_nsn"], True)
        if rng.random() < 0.3:
            twin["first_name"] = twin["first_name"].upper()
        twin["country"] = record["_country"]
        records.append(twin)
    rng.shuffle(records)
    return [
        {"contact_id": str(i), **{k: v for k, v in record.items() if not k.startswith("_")}}
        for i, record in enumerate(records, start=1)
    ]


def to_csv(rows: list[dict[str, str]]) -> str:
    """The CSV text (UTF-8, ``\\n`` line ends, every phone_number quoted as text)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def main(argv: list[str] | None = None) -> None:
    """Write the CSV (default: ``contacts.csv`` next to this script)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS)
    parser.add_argument("--output", type=Path, default=HERE / "contacts.csv")
    args = parser.parse_args(argv)
    args.output.write_bytes(to_csv(make_rows(args.seed, args.rows)).encode("utf-8"))
    print(f"wrote {args.rows} contacts to {args.output}")


if __name__ == "__main__":
    main()
