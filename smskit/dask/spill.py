"""Where a Dask campaign's preflight keeps its partitions between passes: a directory the
workers write and read (one Arrow IPC file per partition and stage). Unless the caller named
it, it is removed once nothing reads it: the report and every lazy frame read from it hold
the :class:`Spill` itself (the tasks carry it), so the files outlive the last of them."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any

__all__ = ["Spill"]


class Spill:
    """A spill directory: ``checked`` (each partition's own preflight), ``repeats`` (its
    duplicates of earlier rows) and ``report`` (the settled per-recipient report)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        if directory is None:
            self.path = Path(tempfile.mkdtemp(prefix="smskit-dask-"))
            # Ours alone: gone when the last report reading it is.
            self._finalizer: weakref.finalize | None = weakref.finalize(
                self, shutil.rmtree, self.path, True
            )
        else:
            self.path = Path(directory)
            self._finalizer = None
        for stage in ("checked", "repeats", "report"):
            (self.path / stage).mkdir(parents=True, exist_ok=True)

    def file(self, stage: str, number: int) -> str:
        """The file of partition ``number`` at ``stage``."""
        return str(self.path / stage / f"part-{number:05d}.arrow")

    def drop(self, *stages: str) -> None:
        """Remove the files of ``stages`` (once the next pass has read them)."""
        for stage in stages:
            shutil.rmtree(self.path / stage, ignore_errors=True)

    def __getstate__(self) -> dict[str, Any]:
        # A copy sent to a worker names the directory; only the client's removes it.
        return {"path": self.path, "_finalizer": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __dask_tokenize__(self) -> str:
        return str(self.path)

    def __repr__(self) -> str:
        return f"Spill({str(self.path)!r})"
