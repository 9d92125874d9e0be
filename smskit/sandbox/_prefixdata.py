"""phonenumbers' geocoder and carrier tables, one part loaded only when a number needs it.

``phonenumbers.geodata`` imports all of its 29 parts (40 MB of source, over a second) when
first imported, and the carrier table its 3 parts: an HLR answer needs the part that holds
its number's prefixes, usually one or two. The parts are sorted, contiguous ranges of the
prefixes (as strings), so the first prefix of each part, read from the head of its file,
says which part holds a prefix; that part alone is then loaded under its own module name,
without running the package's ``__init__``.
"""

from __future__ import annotations

import importlib.util
import re
from bisect import bisect_right
from collections.abc import Mapping
from pathlib import Path
from threading import Lock
from types import ModuleType
from typing import Final

from smskit.rules.once import loaded

__all__ = ["CARRIER", "GEOCODE", "PrefixTable"]

_FIRST_KEY: Final = re.compile(r"^data = \{\s*'(\d+)'", re.MULTILINE)
_LONGEST: Final = re.compile(r"^[A-Z_]+_LONGEST_PREFIX = (\d+)", re.MULTILINE)
_HEAD_BYTES: Final = 4096


class PrefixTable:
    """Longest-prefix English names from one of phonenumbers' per-prefix packages."""

    def __init__(self, package: str) -> None:
        self.package = package
        self._lock = Lock()
        self._parts: list[tuple[str, Path]] | None = None
        self._loaded: dict[int, Mapping[str, Mapping[str, str]]] = {}
        self._longest = 0

    def english(self, e164: str) -> str:
        """The English name of the longest known prefix of ``e164``'s digits, or ''."""
        parts = self._index()
        digits = e164[1:] if e164.startswith("+") else e164
        for length in range(min(self._longest, len(digits)), 0, -1):
            prefix = digits[:length]
            at = bisect_right(parts, prefix, key=lambda part: part[0]) - 1
            if at < 0:
                continue
            names = self._part(at).get(prefix)
            if names is not None and "en" in names:
                return names["en"]
        return ""

    def _index(self) -> list[tuple[str, Path]]:
        if self._parts is None:
            with self._lock:
                if self._parts is None:
                    self._parts = self._read_index()
        return self._parts

    def _read_index(self) -> list[tuple[str, Path]]:
        spec = importlib.util.find_spec("phonenumbers")
        assert spec is not None and spec.origin is not None
        folder = Path(spec.origin).parent / self.package
        longest = _LONGEST.search((folder / "__init__.py").read_text(encoding="utf-8"))
        if longest is None:
            raise RuntimeError(f"phonenumbers.{self.package}: no longest prefix length")
        self._longest = int(longest.group(1))
        parts = []
        for path in folder.glob("data*.py"):
            with path.open(encoding="utf-8") as fh:
                found = _FIRST_KEY.search(fh.read(_HEAD_BYTES))
            if found is not None:
                parts.append((found.group(1), path))
        return sorted(parts)

    def _part(self, at: int) -> Mapping[str, Mapping[str, str]]:
        part = self._loaded.get(at)
        if part is None:
            with self._lock:
                part = self._loaded.get(at)
                if part is None:
                    part = self._loaded[at] = _load(self.package, self._index()[at][1])
        return part

    def __repr__(self) -> str:
        return f"PrefixTable({self.package!r}, {len(self._loaded)} part(s) loaded)"


def _load(package: str, path: Path) -> Mapping[str, Mapping[str, str]]:
    name = f"phonenumbers.{package}.{path.stem}"
    module: ModuleType | None = loaded(name)  # phonenumbers may have imported it whole
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    data: Mapping[str, Mapping[str, str]] = module.data
    return data


GEOCODE: Final = PrefixTable("geodata")
CARRIER: Final = PrefixTable("carrierdata")
