"""Progress of bulk work as events (:class:`ProgressEvents`), and :class:`Progress`, which
sends them to such an object or shows them as a tqdm bar."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from smskit.errors import ValidationError

__all__ = ["Progress", "ProgressEvents", "ProgressOption", "check_progress"]


@runtime_checkable
class ProgressEvents(Protocol):
    """What bulk work reports as it goes, as data: a view (a tqdm bar, a widget) renders it."""

    def start(self, total: int, initial: int, unit: str) -> None:
        """``total`` units to do, ``initial`` of them done already."""

    def advance(self, count: int, **postfix: Any) -> None:
        """``count`` more units done; ``postfix`` holds running figures (cost, failures)."""

    def finish(self) -> None:
        """No more events."""


# What a ``progress=`` argument may be.
ProgressOption = bool | Mapping[str, Any] | ProgressEvents


def check_progress(progress: Any) -> None:
    """Refuse a ``progress=`` that is none of :data:`ProgressOption`'s forms (None is no
    bar), naming it: checked before any work, so a send refused for it plans nothing."""
    if progress is None or isinstance(progress, bool | Mapping | ProgressEvents):
        return
    raise ValidationError(
        "progress", "must be True, False or a dict of tqdm options", value=progress
    )


class Progress:
    """Progress of bulk work, sent to a :class:`ProgressEvents` object, shown as a
    ``tqdm.auto`` bar (widget in notebooks, text in terminals), or nowhere.

    ``progress`` is True, False, a mapping of tqdm options (``desc``, ``file`` ...), or a
    ``ProgressEvents`` object.
    """

    def __init__(self, progress: ProgressOption, *, total: int, initial: int, unit: str) -> None:
        self._bar: Any = None
        self._events: ProgressEvents | None = None
        if progress is False or progress is None:
            return
        if isinstance(progress, ProgressEvents):
            self._events = progress
            progress.start(total, initial, unit)
            return
        check_progress(progress)
        options: dict[str, Any] = {"total": total, "initial": initial, "unit": unit}
        if isinstance(progress, Mapping):
            options.update(progress)
        if "file" in options:
            from tqdm import tqdm  # an explicit stream wants the text bar, not the widget
        else:
            from tqdm.auto import tqdm
        self._bar = tqdm(**options)

    def advance(self, count: int, **postfix: Any) -> None:
        """Count ``count`` more units done and show ``postfix`` (cost so far, failures ...)."""
        if self._events is not None:
            self._events.advance(count, **postfix)
        if self._bar is not None:
            self._bar.update(count)
            if postfix:
                self._bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        """Leave the bar as it stands."""
        if self._events is not None:
            self._events.finish()
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
