"""What the cluster says while smskit's shuffles run: distributed's scheduler narrates each
P2P shuffle's life as WARNING lines ("Shuffle ... initialized by task ...", "... deactivated
due to stimulus ..."), printed into a user's preflight output though nothing is wrong. The
logging library only (no dask import): imported by the parts that build shuffles."""

from __future__ import annotations

import logging
from typing import Final

__all__ = ["SHUFFLE_LOGGER", "quiet_shuffles"]

SHUFFLE_LOGGER: Final = "distributed.shuffle._scheduler_plugin"


def quiet_shuffles() -> None:
    """Keep the scheduler's shuffle narration (:data:`SHUFFLE_LOGGER`, in this process: a
    local cluster's scheduler) to errors. Called where smskit builds a shuffle; a level the
    user set on that logger is left as it is. Its lines come asynchronously, after the
    computation that caused them may have returned, so the level stays for the process."""
    narrator = logging.getLogger(SHUFFLE_LOGGER)
    if narrator.level == logging.NOTSET:
        narrator.setLevel(logging.ERROR)
