"""The gateway client: ``Client`` and ``AsyncClient`` over one request/response core.

Owns: settings and credentials (``config``), request building and response parsing shared
by both clients (``core``), the I/O chains (``clients``), typed results (``models``) and
their DataFrames (``frames``).

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules.
Never campaigns, views, replies or the sandbox (the sandbox is started through
``smskit.sandbox``'s public ``shared()`` when no credentials are configured).
"""

from smskit.client.clients import AsyncClient, Backoff, Client

__all__ = ["AsyncClient", "Backoff", "Client"]
