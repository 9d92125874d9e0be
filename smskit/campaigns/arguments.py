"""The arguments every bulk operation checks the same way: concurrency, chunk size, client."""

from __future__ import annotations

from typing import Any

from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError, ValidationError

__all__ = ["check_chunk_size", "check_client", "check_concurrency"]


def check_concurrency(concurrency: Any) -> int:
    """At least one request at a time, at most 64 (more only queues at the gateway)."""
    if (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, int)
        or not 1 <= concurrency <= 64
    ):
        raise ValidationError("concurrency", "must be an integer from 1 to 64", value=concurrency)
    return concurrency


def check_chunk_size(chunk_size: Any, maximum: int) -> int:
    """1..maximum items per request (the spec's per-request limit)."""
    if (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, int)
        or not 1 <= chunk_size <= maximum
    ):
        raise ValidationError(
            "chunk_size", f"must be an integer from 1 to {maximum}", value=chunk_size
        )
    return chunk_size


def check_client(client: Any) -> None:
    """A campaign's client: a smskit.Client or AsyncClient, or None (``smskit.Client()``,
    made when the campaign first talks to the gateway)."""
    if client is not None and not isinstance(client, Client | AsyncClient):
        raise ConfigurationError(
            f"client must be a smskit.Client or smskit.AsyncClient, got {type(client).__name__}"
        )
