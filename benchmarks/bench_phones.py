"""Throughput of phones.normalize on messy inputs, and of the simulated HLR.

    .venv/bin/python benchmarks/bench_phones.py            # 1,000,000 inputs, 20 % duplicates
    .venv/bin/python benchmarks/bench_phones.py --size 100000 --skip-hlr
    .venv/bin/python benchmarks/bench_phones.py --size 0 --skip-hlr --world 8000

Prints normalize against its anchor, a bare phonenumbers parse+format loop over the same
values, run alternately (min and median of ``--repeat`` rounds, ratio of medians), and the
HLR throughput (``lookup_many`` cold and warm cache, ``region_of``). ``--world N``: N numbers
of every region (a region column, as a customer file of every country: few rows a region),
normalize against the bare loop parsing each in its row's region. Inputs come from a fixed
seed.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import phonenumbers
from _common import cpu_model


def _french_mobile(rng: random.Random) -> str:
    return f"0{rng.choice('67')}{rng.randrange(10**8):08d}"


def _messy(rng: random.Random) -> Any:
    """One spreadsheet-like value: mostly French numbers in assorted spellings, some junk."""
    roll = rng.random()
    national = _french_mobile(rng)
    pairs = " ".join(national[i : i + 2] for i in range(0, 10, 2))
    if roll < 0.20:
        return pairs
    if roll < 0.30:
        return pairs.replace(" ", ".")
    if roll < 0.40:
        return "+33 (0)" + pairs[1:]
    if roll < 0.50:
        return "0033 " + pairs[1:]
    if roll < 0.60:
        return float("33" + national[1:])  # a CSV column read as floats
    if roll < 0.68:
        return "+33" + national[1:]
    if roll < 0.76:
        return f"+44 7{rng.randrange(400, 999)} {rng.randrange(10**6):06d}"
    if roll < 0.84:
        return f"({rng.randrange(201, 989)}) {rng.randrange(200, 999)}-{rng.randrange(10**4):04d}"
    if roll < 0.90:
        return national[: rng.randrange(3, 9)]  # truncated
    if roll < 0.94:
        return rng.choice(["", "  ", None, float("nan"), "n/a", "see notes"])
    return "+" + str(rng.randrange(10**6, 10**13))  # random digits, often invalid


def make_inputs(size: int, duplicate_share: float, seed: int = 0) -> list[Any]:
    """``size`` values of which ``duplicate_share`` repeat earlier ones."""
    rng = random.Random(seed)
    unique_count = int(size * (1 - duplicate_share))
    values = [_messy(rng) for _ in range(unique_count)]
    values += rng.choices(values, k=size - unique_count)
    rng.shuffle(values)
    return values


def _bare_loop(values: list[Any]) -> list[str | None]:
    """The anchor: phonenumbers' parse + format, one value at a time, no smskit."""
    out: list[str | None] = []
    for value in values:
        try:
            number = phonenumbers.parse(str(value), "FR")
        except phonenumbers.NumberParseException:
            out.append(None)
            continue
        out.append(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164))
    return out


def _times(work: Callable[[], object], repeat: int) -> list[float]:
    """Wall times of ``repeat`` runs of ``work``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def _timed(label: str, count: int, work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    elapsed = time.perf_counter() - start
    rate = count / elapsed
    print(f"{label:<46} {count:>9,} in {elapsed:7.2f} s = {rate:>10,.0f} /s")
    return rate


def bench_normalize(size: int, repeat: int) -> None:
    """normalize() and the bare loop side by side, interleaved, min and median of ``repeat``."""
    from smskit import phones
    from smskit.rules import phonecheck

    values = make_inputs(size, 0.20)
    distinct = len({repr(v) for v in values})
    print(f"normalize: {size:,} inputs, {distinct:,} distinct (20 % duplicates)")
    phones.normalize(values[:1000])  # first use compiles the French patterns: timed below too
    ours: list[float] = []
    anchor: list[float] = []
    for _ in range(repeat):
        # A fresh copy each round: normalize must not profit from an earlier round's caches
        # of the same objects (the per-number cache is cleared too).
        phonecheck.classify_text.cache_clear()
        ours += _times(lambda: phones.normalize(list(values)), 1)
        anchor += _times(lambda: _bare_loop(values), 1)
    for label, times in (("phones.normalize", ours), ("bare parse+format loop", anchor)):
        print(f"{label:<24} min {min(times):7.2f} s  median {statistics.median(times):7.2f} s")
    print(f"speed-up (median) {statistics.median(anchor) / statistics.median(ours):5.1f} x")
    print(f"peak RSS of this process: {_peak_rss_mb():.0f} MB (one process, no helpers)")


def _world(size: int, seed: int = 7) -> tuple[list[str], list[str]]:
    """``size`` mobile numbers of every region, national or international spelling, and
    each row's region."""
    rng = random.Random(seed)
    examples = {}
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
        if example is not None:
            examples[region] = example
    values, regions = [], []
    for _ in range(size):
        region = rng.choice(sorted(examples))
        example = examples[region]
        national = str(example.national_number)
        national = national[:-2] + f"{rng.randrange(100):02d}"
        if rng.random() < 0.5:
            values.append(f"+{example.country_code} {national}")
        else:
            values.append(phonenumbers.format_number(
                phonenumbers.parse(f"+{example.country_code}{national}"),
                phonenumbers.PhoneNumberFormat.NATIONAL,
            ))  # fmt: skip
        regions.append(region)
    return values, regions


def bench_world(size: int, repeat: int) -> None:
    """normalize() of every region's numbers (a region a row) against the bare loop."""
    from smskit import phones
    from smskit.rules import phonecheck

    values, regions = _world(size)
    print(f"normalize, every region: {size:,} numbers over {len(set(regions))} regions")

    def bare() -> None:
        for value, region in zip(values, regions, strict=True):
            try:
                number = phonenumbers.parse(value, region)
            except phonenumbers.NumberParseException:
                continue
            phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)

    ours: list[float] = []
    anchor: list[float] = []
    for _ in range(repeat):
        phonecheck.classify_text.cache_clear()
        ours += _times(lambda: phones.normalize(values, default_region=None, region=regions), 1)
        anchor += _times(bare, 1)
    for label, times in (("phones.normalize", ours), ("bare parse+format loop", anchor)):
        print(f"{label:<24} min {min(times):7.2f} s  median {statistics.median(times):7.2f} s")
    ratio = statistics.median(ours) / statistics.median(anchor)
    print(f"ratio (median, ours / anchor) {ratio:5.2f} x")


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _valid_mobiles(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    stems = {"FR": "+336", "GB": "+447", "DE": "+4917", "IT": "+3933", "ES": "+346", "US": "+1212"}
    lengths = {"FR": 12, "GB": 13, "DE": 13, "IT": 13, "ES": 12, "US": 12}
    found: set[str] = set()
    while len(found) < count:
        region = rng.choice(list(stems))
        stem = stems[region]
        candidate = stem + "".join(
            rng.choice("0123456789") for _ in range(lengths[region] - len(stem) - 1)
        )
        if phonenumbers.is_valid_number(phonenumbers.parse(candidate)):
            found.add(candidate)
    return sorted(found)


def bench_hlr(count: int) -> None:
    from smskit.rules.phonecheck import region_of
    from smskit.sandbox import _hlr

    numbers = _valid_mobiles(count)
    _hlr.lookup_many(_valid_mobiles(200, seed=99))  # load the metadata once
    print(f"HLR: {count:,} distinct valid numbers (FR, GB, DE, IT, ES, US)")
    _timed("lookup_many, cold cache", count, lambda: _hlr.lookup_many(numbers))
    _timed(
        "lookup_many, warm cache, another seed", count, lambda: _hlr.lookup_many(numbers, seed=1)
    )
    _timed("region_of", count, lambda: [region_of(n) for n in numbers])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--hlr-size", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-hlr", action="store_true")
    parser.add_argument("--world", type=int, default=0, help="numbers of every region (0: skip)")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()},")
    print(f"         phonenumbers {phonenumbers.__version__}")
    if args.size:
        bench_normalize(args.size, args.repeat)
    if args.world:
        bench_world(args.world, args.repeat)
    if not args.skip_hlr:
        bench_hlr(args.hlr_size)


if __name__ == "__main__":
    main()
