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
from typing import Any, Final

import numpy as np

__all__ = ["PAD", "DigitAutomaton", "Node", "Unsupported", "digit_matrix", "parse"]

_DIGITS: Final = frozenset(range(10))
PAD: Final = 10  # the symbol after a number's last digit
# Beyond this many states the subset construction is not worth it: use the per-number path.
MAX_STATES: Final = 20_000


class Unsupported(ValueError):
    """The pattern uses a construct this compiler does not translate."""


# A parsed pattern: ("set", digits) | ("seq", items) | ("alt", branches) | ("rep", low, high, item)
# (high None: unbounded). Only what phonenumbers' patterns use is read; anything else is
# refused with Unsupported, never guessed.
Node = tuple[Any, ...]


class _Parser:
    """Recursive descent over the digit-pattern subset of Python's regex syntax.

    Our own reader (not ``re``'s private parser, whose shape changes between Python
    versions): digits, ``\\d``, classes of digits and ranges (``^`` negates), groups
    (``(...)``, ``(?:...)``), ``|``, and the repeats ``?``, ``*``, ``+``, ``{n}``, ``{n,}``,
    ``{n,m}`` (a lazy ``?`` after them changes nothing for a full match). The automaton is
    pinned to ``re.fullmatch`` by a property test over every region's patterns.
    """

    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def parse(self) -> Node:
        node = self._alternation()
        if self.at != len(self.text):
            raise Unsupported(f"unexpected {self.text[self.at]!r} at {self.at}")
        return node

    def _peek(self) -> str:
        return self.text[self.at] if self.at < len(self.text) else ""

    def _alternation(self) -> Node:
        branches = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            branches.append(self._sequence())
        return branches[0] if len(branches) == 1 else ("alt", tuple(branches))

    def _sequence(self) -> Node:
        items: list[Node] = []
        while self._peek() not in ("", "|", ")"):
            items.append(self._repeat(self._atom()))
        return ("seq", tuple(items))

    def _atom(self) -> Node:
        char = self._peek()
        self.at += 1
        if "0" <= char <= "9":
            return ("set", frozenset({int(char)}))
        if char == "\\":
            if self._peek() != "d":
                raise Unsupported(f"escape \\{self._peek()}")
            self.at += 1
            return ("set", _DIGITS)
        if char == "[":
            return ("set", self._class())
        if char == "(":
            if self._peek() == "?":
                if self.text[self.at : self.at + 2] != "?:":
                    raise Unsupported("group extension")
                self.at += 2
            inner = self._alternation()
            if self._peek() != ")":
                raise Unsupported("unclosed group")
            self.at += 1
            return inner
        raise Unsupported(f"character {char!r}")

    def _class(self) -> frozenset[int]:
        negate = self._peek() == "^"
        self.at += negate
        found: set[int] = set()
        if self._peek() == "]":
            raise Unsupported("empty class or literal ]")
        while self._peek() != "]":
            char = self._peek()
            if not char:
                raise Unsupported("unclosed class")
            self.at += 1
            if char == "\\":
                if self._peek() != "d":
                    raise Unsupported(f"class escape \\{self._peek()}")
                self.at += 1
                found.update(_DIGITS)
                continue
            if char == "[":
                raise Unsupported("nested class")
            low = high = ord(char)
            if self._peek() == "-" and self.text[self.at + 1 : self.at + 2] not in ("]", ""):
                high = ord(self.text[self.at + 1])
                if self.text[self.at + 1] in "\\[":
                    raise Unsupported("escaped range end")
                self.at += 2
                if high < low:
                    raise Unsupported("bad range")
            # A character outside 0-9 can never match a digit: harmless, skip it.
            found.update(d for d in range(10) if low <= d + 48 <= high)
        self.at += 1
        return frozenset(_DIGITS - found) if negate else frozenset(found)

    def _repeat(self, node: Node) -> Node:
        char = self._peek()
        if char in ("?", "*", "+"):
            self.at += 1
            low, high = {"?": (0, 1), "*": (0, None), "+": (1, None)}[char]
        elif char == "{" and (bounds := _BOUNDS.match(self.text, self.at)):
            self.at = bounds.end()
            low = int(bounds["low"])
            high = int(bounds["high"]) if bounds["high"] else None  # {n,}: no bound
            if bounds["comma"] is None:  # {n}
                high = low
            if high is not None and high < low:
                raise Unsupported("bad repeat")
        else:
            return node
        if self._peek() == "?":  # lazy: the same full matches
            self.at += 1
        elif self._peek() in ("+", "*", "{"):
            raise Unsupported("possessive or repeated repeat")
        return ("rep", low, high, node)


_BOUNDS: Final = re.compile(r"\{(?P<low>[0-9]+)(?P<comma>,(?P<high>[0-9]*))?\}")


def parse(pattern: str) -> Node:
    """The tree of a digit pattern; :class:`Unsupported` for anything outside the subset."""
    return _Parser(pattern).parse()


class _NFA:
    """Thompson automaton: per state, digit-set edges and epsilon edges."""

    def __init__(self) -> None:
        self.edges: list[list[tuple[frozenset[int], int]]] = []
        self.eps: list[list[int]] = []

    def state(self) -> int:
        self.edges.append([])
        self.eps.append([])
        return len(self.edges) - 1

    def build(self, node: Node, start: int) -> int:
        """Add ``node`` after ``start``; return its end state."""
        kind = node[0]
        if kind == "set":
            return self._step(start, node[1])
        if kind == "seq":
            for item in node[1]:
                start = self.build(item, start)
            return start
        if kind == "alt":
            end = self.state()
            for branch in node[1]:
                self.eps[self.build(branch, self._fork(start))].append(end)
            return end
        _rep, low, high, sub = node
        for _ in range(low):
            start = self.build(sub, start)
        if high is None:
            loop = self._fork(start)
            self.eps[self.build(sub, loop)].append(loop)
            return loop
        end = self.state()
        for _ in range(high - low):
            self.eps[start].append(end)
            start = self.build(sub, start)
        self.eps[start].append(end)
        return end

    def _fork(self, start: int) -> int:
        state = self.state()
        self.eps[start].append(state)
        return state

    def _step(self, start: int, digits: frozenset[int]) -> int:
        end = self.state()
        if digits:
            self.edges[start].append((digits, end))
        return end


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
            end = nfa.build(parse(pattern), nfa._fork(root))
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
        return self.accept[self.states(digits)]

    def states(self, digits: np.ndarray) -> np.ndarray:
        """Per row of ``digits`` (as :meth:`masks` reads them), the state it ends in: what
        a row matches is ``accept[state]``, so anything decided from the mask alone can be
        decided once per state."""
        state = np.ones(len(digits), dtype=np.int32)  # state 1 is the start, 0 the dead state
        # PAD keeps every state: the columns after the longest row's last digit change nothing.
        used = np.flatnonzero((digits != PAD).any(axis=0))
        width = int(used[-1]) + 1 if len(used) else 0
        symbols = self.table.shape[1]
        for column in range(width):
            state = self._flat[state * symbols + digits[:, column]]
        return state


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
