"""Regular expressions over decimal digits, compiled to one table-driven automaton.

phonenumbers decides validity and line type by matching national numbers against its
per-region patterns, one ``re`` call per number and pattern. These patterns are plain regular
expressions over the digits 0-9 (literals, classes, groups, alternation, bounded repeats), so
several of them compile into one deterministic automaton whose transition table is applied to
a whole array of numbers at once: one numpy gather per digit position, whatever the number of
patterns. Each accepting state carries a bit mask saying which patterns match in full.

A pattern using anything else (anchors, look-arounds, back-references, non-digit classes) is
refused with :class:`Unsupported`; callers then keep the per-number path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from re import _constants as sre  # type: ignore[attr-defined]  # the stdlib parser's opcodes
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, Final

import numpy as np

__all__ = ["PAD", "DigitAutomaton", "Unsupported", "digit_matrix"]

_DIGITS: Final = frozenset(range(10))
PAD: Final = 10  # the symbol after a number's last digit
# Beyond this many states the subset construction is not worth it: use the per-number path.
MAX_STATES: Final = 20_000


class Unsupported(ValueError):
    """The pattern uses a construct this compiler does not translate."""


class _NFA:
    """Thompson automaton: per state, digit-set edges and epsilon edges."""

    def __init__(self) -> None:
        self.edges: list[list[tuple[frozenset[int], int]]] = []
        self.eps: list[list[int]] = []

    def state(self) -> int:
        self.edges.append([])
        self.eps.append([])
        return len(self.edges) - 1

    def build(self, items: Any, start: int) -> int:
        """Add the parsed sequence ``items`` after ``start``; return its end state."""
        for op, arg in items:
            start = self._item(op, arg, start)
        return start

    def _item(self, op: Any, arg: Any, start: int) -> int:
        if op is sre.LITERAL:
            return self._step(start, _literal(arg))
        if op is sre.IN:
            return self._step(start, _charset(arg))
        if op is sre.SUBPATTERN:
            _group, add_flags, del_flags, sub = arg
            if add_flags or del_flags:
                raise Unsupported("inline flags")
            return self.build(sub, start)
        if op is sre.BRANCH:
            end = self.state()
            for alternative in arg[1]:
                self.eps[self.build(alternative, self._fork(start))].append(end)
            return end
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, high, sub = arg
            for _ in range(low):
                start = self.build(sub, start)
            if high is sre.MAXREPEAT:
                loop = self._fork(start)
                self.eps[self.build(sub, loop)].append(loop)
                return loop
            end = self.state()
            for _ in range(high - low):
                self.eps[start].append(end)
                start = self.build(sub, start)
            self.eps[start].append(end)
            return end
        if op is sre.CATEGORY and arg is sre.CATEGORY_DIGIT:
            return self._step(start, _DIGITS)
        raise Unsupported(str(op))

    def _fork(self, start: int) -> int:
        state = self.state()
        self.eps[start].append(state)
        return state

    def _step(self, start: int, digits: frozenset[int]) -> int:
        end = self.state()
        if digits:
            self.edges[start].append((digits, end))
        return end


def _literal(code: int) -> frozenset[int]:
    char = chr(code)
    if not ("0" <= char <= "9"):
        raise Unsupported(f"literal {char!r}")
    return frozenset({code - 48})


def _charset(items: Any) -> frozenset[int]:
    found: set[int] = set()
    negate = False
    for op, arg in items:
        if op is sre.NEGATE:
            negate = True
        elif op is sre.LITERAL:
            # A literal outside 0-9 in a class can never match a digit: harmless, skip it.
            if 48 <= arg <= 57:
                found.add(arg - 48)
        elif op is sre.RANGE:
            low, high = arg
            found.update(d for d in range(10) if low <= d + 48 <= high)
        elif op is sre.CATEGORY and arg is sre.CATEGORY_DIGIT:
            found.update(_DIGITS)
        else:
            raise Unsupported(f"class item {op}")
    return frozenset(_DIGITS - found) if negate else frozenset(found)


class DigitAutomaton:
    """Full matches of several digit patterns, decided for arrays of digit strings.

    ``masks(digits)`` takes an ``(n, length)`` array of digit values (0-9) and returns, per row,
    a bit mask: bit ``i`` is set when pattern ``i`` matches the whole row (``re.fullmatch``);
    a None or empty pattern matches nothing.
    """

    def __init__(self, patterns: Sequence[str | None]) -> None:
        if len(patterns) > 63:
            raise Unsupported("at most 63 patterns")
        nfa = _NFA()
        root = nfa.state()
        accepts: dict[int, int] = {}
        for bit, pattern in enumerate(patterns):
            if not pattern:  # phonenumbers: an absent or empty pattern matches nothing
                continue
            try:
                parsed = sre_parse.parse(pattern)
            except re.error as exc:
                raise Unsupported(str(exc)) from exc
            end = nfa.build(list(parsed), nfa._fork(root))
            accepts[end] = accepts.get(end, 0) | (1 << bit)
        self.table, self.accept = _determinise(nfa, root, accepts)
        self._flat = self.table.ravel()  # one 1-D gather per column, not a 2-D one

    @property
    def size(self) -> int:
        """Number of states (the dead state included)."""
        return int(self.table.shape[0])

    def masks(self, digits: np.ndarray) -> np.ndarray:
        """Per row of ``digits`` (uint8, shape (n, width)), the mask of patterns matched.

        Digits are 0-9; the value :data:`PAD` after a row's last digit pads it to ``width``.
        """
        state = np.ones(len(digits), dtype=np.int32)  # state 1 is the start, 0 the dead state
        # PAD keeps every state: the columns after the longest row's last digit change nothing.
        used = np.flatnonzero((digits != PAD).any(axis=0))
        width = int(used[-1]) + 1 if len(used) else 0
        symbols = self.table.shape[1]
        for column in range(width):
            state = self._flat[state * symbols + digits[:, column]]
        return self.accept[state]


def _closures(nfa: _NFA) -> list[int]:
    """Epsilon closure of every NFA state, as bit sets (Python ints)."""
    result = []
    for origin in range(len(nfa.eps)):
        seen = 1 << origin
        todo = [origin]
        while todo:
            for nxt in nfa.eps[todo.pop()]:
                if not seen >> nxt & 1:
                    seen |= 1 << nxt
                    todo.append(nxt)
        result.append(seen)
    return result


def _members(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def _determinise(nfa: _NFA, root: int, accepts: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    # Only states with a digit edge or an accept tag tell DFA states apart: drop the others
    # (most of a Thompson automaton) from every set.
    important = 0
    for state, edges in enumerate(nfa.edges):
        if edges or state in accepts:
            important |= 1 << state
    closure = [bits & important for bits in _closures(nfa)]
    # Per NFA state: (digit, closed set of states one digit away) for the digits it reads.
    step: list[list[tuple[int, int]]] = []
    for state in range(len(nfa.edges)):
        row = [0] * 10
        for digits, target in nfa.edges[state]:
            for digit in digits:
                row[digit] |= closure[target]
        step.append([(digit, bits) for digit, bits in enumerate(row) if bits])
    start = closure[root]
    index: dict[int, int] = {0: 0, start: 1}
    order = [0, start]
    rows: list[list[int]] = [[0] * 10]
    masks = [0]
    position = 1
    while position < len(order):
        members = _members(order[position])
        position += 1
        moved = [0] * 10
        mask = 0
        for state in members:
            for digit, bits in step[state]:
                moved[digit] |= bits
            mask |= accepts.get(state, 0)
        out = []
        for target in moved:
            found = index.get(target)
            if found is None:
                if len(order) >= MAX_STATES:
                    raise Unsupported("too many states")
                found = index[target] = len(order)
                order.append(target)
            out.append(found)
        rows.append(out)
        masks.append(mask)
    table = np.array(rows, dtype=np.int32)
    # Column PAD: every state stays where it is, so rows of several lengths share one pass.
    stay = np.arange(len(rows), dtype=np.int32)[:, None]
    return np.hstack([table, stay]), np.array(masks, dtype=np.int64)


def digit_matrix(numbers: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """ASCII digit strings as a (n, longest) array of digits padded with :data:`PAD`, and
    their lengths."""
    if not numbers:
        return np.zeros((0, 0), dtype=np.uint8), np.zeros(0, dtype=np.int64)
    raw = np.array(numbers, dtype=bytes)
    width = raw.dtype.itemsize
    codes = raw.view(np.uint8).reshape(len(numbers), width)
    filled = codes != 0
    digits = np.where(filled, codes - 48, PAD).astype(np.uint8)
    return digits, filled.sum(axis=1)
