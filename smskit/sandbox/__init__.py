"""The embedded sandbox gateway: the whole gateway spec, on 127.0.0.1, state in SQLite.

``Sandbox`` starts one (context manager or ``start()``/``stop()``); ``shared()`` gives the
process-wide one the client uses when no credentials are set. Starlette and uvicorn are
imported only when a sandbox starts. See docs/sandbox.md for every choice made where the
spec is silent.
"""

from smskit.sandbox._sandbox import Sandbox, shared

__all__ = ["Sandbox", "shared"]
