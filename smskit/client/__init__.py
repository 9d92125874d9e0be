"""The gateway client: ``Client`` and ``AsyncClient`` over one request/response core.

Owns: settings and credentials (``config``), every endpoint declared once as request
building and the parser of its answer (``core``), the input checks of those endpoints
(``checks``), error answers mapped to exceptions (``error_map``), the I/O chains
(``clients``), typed results (``models``, their field readers in ``readers``), their
notebook HTML (``reprs``) and their DataFrames (``dtypes`` declares their categorical dtypes
and breakdown labels, ``frame_builders`` builds them from parsed results, ``frames`` also
takes raw JSON and parses it with the models first).

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules
(``smskit._html`` ...). Never campaigns, views, replies or the sandbox: with no credentials
configured, the client uses the local gateway that ``smskit/__init__.py`` plugs in
(``config.use_local_gateway``), the embedded sandbox.
"""

from smskit.client.clients import AsyncClient, Backoff, Client

__all__ = ["AsyncClient", "Backoff", "Client"]
