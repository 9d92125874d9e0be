"""The embedded sandbox gateway: the whole gateway spec, on 127.0.0.1, state in SQLite.

``Sandbox`` starts one (context manager or ``start()``/``stop()``); ``shared()`` gives the
process-wide one the client uses when no credentials are set. Starlette and uvicorn are
imported only when a sandbox starts. See docs/sandbox.md for every choice made where the
spec is silent.

Owns: the gateway's domain rules applied to requests, its SQLite store (wallet, contacts,
sends, duplicate request_ids), HLR simulation, prices, callbacks (replies, delivery reports,
STOPs), recipients opening the links of their texts (``_clicks``: people and preview bots,
over HTTP), faults, clock, the Starlette app and its OpenAPI document.

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules
(``smskit._server``, ``smskit._sqlite`` ...). Never the client, campaigns, views, replies
or the CLI: it checks the client rather than echoing it.
"""

from typing import Any

from smskit.sandbox._reports import DeliveryModel
from smskit.sandbox._sandbox import Sandbox, shared

__all__ = ["DeliveryModel", "HLRDistribution", "Sandbox", "shared"]


def __getattr__(name: str) -> Any:
    # The HLR simulation loads phonenumbers' metadata: only when someone asks for it.
    if name == "HLRDistribution":
        from smskit.sandbox._hlr import HLRDistribution

        return HLRDistribution
    raise AttributeError(f"module 'smskit.sandbox' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and the lazy ones, so ``dir()`` and the reference list them all."""
    return sorted({*globals(), *__all__})
