"""rphonenumbers (Rust-backed) against phonenumbers as the per-number path: answers and time.

    .venv/bin/python benchmarks/bench_rphonenumbers.py --size 200000

Reads the same values with each library the way smskit's per-number path does (parse in a
region, then E.164, validity, line type, region, possibility reason), compares the answers
value for value, and times both in the same run, alternately (ratio of medians). Inputs: the
messy-million generator of bench_phones.py and the spellings of the phone tests' generator.
Also lists the phonenumbers names smskit's phone engine imports that rphonenumbers lacks.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import phonenumbers
from bench_phones import make_inputs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.test_phones_fastpath import _spelling  # the tests' own generator

ENGINE_NAMES = ("PhoneMetadata", "PhoneNumber", "PhoneNumberType", "ValidationResult")


def read(lib: ModuleType, text: str, region: str | None) -> tuple[Any, ...]:
    """The per-number path's questions, asked of ``lib``."""
    try:
        number = lib.parse(text, region)
    except lib.NumberParseException as exc:
        return ("error", int(exc.error_type))
    return (
        lib.format_number(number, lib.PhoneNumberFormat.E164),
        lib.is_valid_number(number),
        int(lib.number_type(number)),
        lib.region_code_for_number(number),
        int(lib.is_possible_number_with_reason(number)),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rust = importlib.import_module("rphonenumbers")
    missing = [name for name in ENGINE_NAMES if not hasattr(rust, name)]
    print(f"names smskit's phone engine imports that rphonenumbers lacks: {missing}")
    rng = random.Random(0)
    spellings = sorted({_spelling(rng) for _ in range(20_000)}, key=repr)
    messy = [(str(v).strip(), "FR") for v in make_inputs(args.size, 0.20) if v is not None]
    for label, cases in (("tests' generator, distinct", spellings), ("messy inputs", messy)):
        differ = [
            (text, region, read(phonenumbers, text, region), read(rust, text, region))
            for text, region in cases
            if read(phonenumbers, text, region) != read(rust, text, region)
        ]
        print(f"{label}: {len(cases):,} values, {len(differ):,} answers differ")
        for row in differ[:5]:
            print("   ", row)
    times: dict[str, list[float]] = {"phonenumbers": [], "rphonenumbers": []}
    for _ in range(args.repeat):
        for label, lib in (("phonenumbers", phonenumbers), ("rphonenumbers", rust)):
            start = time.perf_counter()
            for text, region in messy:
                read(lib, text, region)
            times[label].append(time.perf_counter() - start)
    for label, values in times.items():
        print(f"{label:<14} median {statistics.median(values):6.2f} s  {values}")
    ratio = statistics.median(times["phonenumbers"]) / statistics.median(times["rphonenumbers"])
    print(f"rphonenumbers speed-up (median): {ratio:.2f} x")


if __name__ == "__main__":
    main()
