"""Benchmark of smskit.rules.batch.analyze_many against smsutil on 1,000,000 personalised messages.

Run from the repository root::

    .venv/bin/pip install smsutil    # the peer; for this benchmark only, not a dependency
    .venv/bin/python benchmarks/bench_text.py            # all 1,000,000 messages
    .venv/bin/python benchmarks/bench_text.py -n 100000  # a quicker run

Mix: 80 % short GSM-7, 15 % long GSM-7 with extension characters, 5 % UCS-2 with emoji
(plain, skin-tone, flag and ZWJ sequences). Prints the machine, the timings and whether
both libraries agree on encoding and segments for every message; where they differ, checks
that smsutil's split cuts a grapheme cluster (which smskit keeps whole by design).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from itertools import pairwise

import numpy as np
import pandas as pd
from _common import cpu_model

from smskit.rules.batch import analyze_many
from smskit.rules.personalize import render_all

SHORT = (
    "Bonjour {first_name}, -20% sur tout le magasin ce week-end avec le code {param1}. "
    "STOP au 36173",
    "{first_name} {last_name}, votre commande {param1} est disponible. Retrait avant le {param2}.",
    "Hello {first_name}! Your appointment is on {param2} at {param3}. Reply STOP to opt out",
    "{first_name}, il vous reste {param4} points fidélité. A très vite ! STOP au 36173",
)
LONG = (
    "Cher {first_name} {last_name}, votre facture {param1} de {param4}€ est disponible dans "
    "votre espace client [rubrique Factures]. Le prélèvement aura lieu le {param2}. Pour toute "
    "question, répondez à ce message ou appelez le 09 70 00 00 00 {{du lundi au vendredi}}. "
    "Offre valable ~1 mois | STOP au 36173",
    "{first_name}, OFFRE FLASH: -{param4}€ sur votre prochain achat avec le code [{param1}] "
    "jusqu'au {param2} à {param3}. Cumulable avec vos avantages {{fidélité}} ^_^ Voir "
    "conditions en magasin ou sur notre site rubrique \\offres\\. STOP au 36173",
    "{first_name} {last_name}, rappel: votre contrat {param1} arrive à échéance le {param2}. "
    "Renouvelez-le avant {param3} pour garder vos avantages: [1] remise de {param4}€ par an, "
    "[2] assistance 24h/24 {{hors jours fériés}}, [3] franchise réduite à 0€ | Tarifs: "
    "https://ex.fr/~tarifs?ref={param1}&src=sms^2. Sans réponse de votre part, le contrat "
    "prend fin automatiquement. Conditions générales sur https://ex.fr/cg. STOP au 36173",
)
UCS2 = (
    "Salut {first_name} 👋 ta commande {param1} arrive aujourd'hui 🚚",
    "{first_name}, joyeux anniversaire 🎉🎂! Un cadeau t'attend en magasin 👍🏽 STOP au 36173",
    "Allez les Bleus 🇫🇷🇫🇷 ! {first_name}, -{param4}€ sur les maillots jusqu'au {param2} avec "
    "le code {param1} 👨‍👩‍👧‍👦 en famille, c'est encore mieux ❤️ STOP au 36173",
)
FIRST = ("Léa", "Hugo", "Chloé", "Louis", "Inès", "Jean-Baptiste", "Zoé", "Noah", "Hélène", "Élise")
LAST = ("Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand")


def build(n: int, seed: int = 0) -> pd.Series:
    """``n`` personalised messages in the 80/15/5 mix, rendered with smskit.text.render_all."""
    rng = np.random.default_rng(seed)
    kind = rng.choice(3, size=n, p=[0.80, 0.15, 0.05])
    pools = (SHORT, LONG, UCS2)
    pick = rng.integers(0, 1 << 30, size=n)
    recipients = pd.DataFrame(
        {
            "first_name": np.array(FIRST)[rng.integers(0, len(FIRST), n)],
            "last_name": np.array(LAST)[rng.integers(0, len(LAST), n)],
            "param1": [f"C{v:07d}" for v in rng.integers(0, 10**7, n)],
            "param2": [
                f"{d:02d}/0{m}"
                for d, m in zip(rng.integers(1, 29, n), rng.integers(1, 10, n), strict=True)
            ],
            "param3": [
                f"{h}h{m:02d}"
                for h, m in zip(rng.integers(8, 20, n), rng.integers(0, 60, n), strict=True)
            ],
            "param4": rng.integers(1, 500, n).astype(str),
        }
    )
    texts = pd.Series("", index=recipients.index, dtype="str")
    for k, pool in enumerate(pools):
        for j, template in enumerate(pool):
            rows = (kind == k) & (pick % len(pool) == j)
            texts[rows] = render_all(template, recipients[rows]).to_numpy()
    return texts


def machine() -> str:
    model = cpu_model()
    return (
        f"{model}, nproc={os.cpu_count()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}, pandas {pd.__version__}, load average {os.getloadavg()[0]:.2f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=1_000_000, help="messages (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of analyze_many")
    args = parser.parse_args()
    try:
        import smsutil
    except ImportError:
        print(
            "smsutil is missing: install it for this benchmark with\n"
            "    .venv/bin/pip install smsutil",
            file=sys.stderr,
        )
        return 2

    print(f"machine: {machine()}")
    t0 = time.perf_counter()
    texts = build(args.n)
    print(
        f"built {len(texts):,} messages in {time.perf_counter() - t0:.1f} s "
        f"(mean {texts.str.len().mean():.0f} characters)"
    )
    values = texts.tolist()

    t0 = time.perf_counter()
    analyze_many(["warm-up"])  # builds the code point tables (once per process)
    print(f"code point tables built in {time.perf_counter() - t0:.2f} s (once per process)")
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        ours = analyze_many(values)
        times.append(time.perf_counter() - t0)
    best = min(times)
    print(
        f"smskit analyze_many: first call {times[0]:.2f} s, best of {args.repeat} {best:.2f} s "
        f"({len(values) / best:,.0f} messages/s)"
    )

    t0 = time.perf_counter()
    peer = [smsutil.split(t) for t in values]
    peer_time = time.perf_counter() - t0
    print(f"smsutil split:       {peer_time:.2f} s ({len(values) / peer_time:,.0f} messages/s)")
    print(f"speed-up: {peer_time / best:.1f}x")

    peer_segments = np.array([len(r.parts) for r in peer])
    peer_ucs2 = np.array([r.encoding != "gsm0338" for r in peer])
    our_ucs2 = (ours["encoding"] == "UCS-2").to_numpy()
    our_segments = ours["segments"].to_numpy(dtype=np.int64)
    same_encoding = int((peer_ucs2 == our_ucs2).sum())
    differ = np.flatnonzero(peer_segments != our_segments)
    print(
        f"encoding agrees on {same_encoding:,}/{len(values):,}; "
        f"segments agree on {len(values) - differ.size:,}/{len(values):,}"
    )
    explained = sum(_cuts_cluster(peer[i]) for i in differ)
    print(f"differences where smsutil cuts a grapheme cluster: {explained:,}/{differ.size:,}")
    counts = ours["segments"].value_counts().sort_index()
    print(f"messages by segment count (smskit): { {int(k): int(v) for k, v in counts.items()} }")
    return 0 if same_encoding == len(values) and explained == differ.size else 1


def _cuts_cluster(result: object) -> bool:
    """True when a boundary of smsutil's split falls inside an extended grapheme cluster."""
    import regex

    parts = [p.content for p in result.parts]  # type: ignore[attr-defined]
    return any(
        len(regex.findall(r"\X", a[-8:] + b[:8]))
        < len(regex.findall(r"\X", a[-8:])) + len(regex.findall(r"\X", b[:8]))
        for a, b in pairwise(parts)
    )


if __name__ == "__main__":
    raise SystemExit(main())
