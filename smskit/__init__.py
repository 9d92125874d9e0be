"""smskit: drive an SMS gateway from Jupyter, with typed results and an embedded sandbox.

``client = smskit.Client()`` talks to the gateway configured by ``SMSKIT_*`` variables, or to
a local sandbox when none is set. Heavy or optional parts (the sandbox server, plots,
widgets, pandas) are imported only when first used, so ``import smskit`` stays quick.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from smskit import errors
from smskit.client import AsyncClient, Backoff, Client
from smskit.client.config import use_local_gateway
from smskit.client.models import (
    ContactItem,
    ContactItems,
    CountryCredits,
    Credits,
    HLRResult,
    HLRResults,
    ListEmptied,
    NetworkDetails,
    SendResult,
    SmsDraft,
    TransferToken,
    VoiceDraft,
)
from smskit.client.wallet import Balance, WalletPack
from smskit.errors import (
    APIError,
    AuthenticationError,
    CampaignBusy,
    ConfigurationError,
    DuplicateRequestError,
    InsufficientCreditError,
    MissingExtraError,
    NoRecipientError,
    NotFoundError,
    PayloadValidationError,
    RateLimitError,
    ResponseShapeError,
    ServerError,
    SmskitError,
    StopMentionMissingError,
    TimeoutError,
    TransportError,
    ValidationError,
)

if TYPE_CHECKING:
    from smskit.campaigns import CampaignResult, CampaignSpec, CostEstimate, PreflightReport
    from smskit.campaigns.bulk import (
        abulk_hlr,
        acreate_contacts,
        adelete_contacts,
        bulk_hlr,
        create_contacts,
        delete_contacts,
    )
    from smskit.campaigns.campaign import Campaign
    from smskit.campaigns.comparison import ExperimentComparison
    from smskit.campaigns.experiment import Experiment, ExperimentResult
    from smskit.client.config import SandboxLike
    from smskit.replies.inbox import Inbox
    from smskit.sandbox import Sandbox
    from smskit.views.composer import Composer
    from smskit.views.dashboard import Dashboard
    from smskit.views.hlr_explorer import HLRExplorer

__all__ = [
    "APIError",
    "AsyncClient",
    "AuthenticationError",
    "Backoff",
    "Balance",
    "Campaign",
    "CampaignBusy",
    "CampaignResult",
    "CampaignSpec",
    "Client",
    "Composer",
    "ConfigurationError",
    "ContactItem",
    "ContactItems",
    "CostEstimate",
    "CountryCredits",
    "Credits",
    "Dashboard",
    "DuplicateRequestError",
    "Experiment",
    "ExperimentComparison",
    "ExperimentResult",
    "HLRExplorer",
    "HLRResult",
    "HLRResults",
    "Inbox",
    "InsufficientCreditError",
    "ListEmptied",
    "MissingExtraError",
    "NetworkDetails",
    "NoRecipientError",
    "NotFoundError",
    "PayloadValidationError",
    "PreflightReport",
    "RateLimitError",
    "ResponseShapeError",
    "Sandbox",
    "SendResult",
    "ServerError",
    "SmsDraft",
    "SmskitError",
    "StopMentionMissingError",
    "TimeoutError",
    "TransferToken",
    "TransportError",
    "ValidationError",
    "VoiceDraft",
    "WalletPack",
    "__version__",
    "abulk_hlr",
    "acreate_contacts",
    "adelete_contacts",
    "bulk_hlr",
    "create_contacts",
    "delete_contacts",
    "errors",
]

# What a Campaign returns, and the spec it is made of (from_spec, Composer.spec).
_CAMPAIGN_TYPES = frozenset({"CampaignResult", "CampaignSpec", "CostEstimate", "PreflightReport"})

# The bulk helpers, each blocking one beside its async twin.
_BULK = frozenset({"bulk_hlr", "create_contacts", "delete_contacts"})
_BULK |= {"a" + name for name in _BULK}

# The notebook widgets, each in the view module that defines it.
_WIDGETS = {
    "Composer": "smskit.views.composer",
    "Dashboard": "smskit.views.dashboard",
    "HLRExplorer": "smskit.views.hlr_explorer",
}

# Submodules reachable as attributes (smskit.text ...) but imported only on first access.
_LAZY_MODULES = frozenset(
    {"campaigns", "dask", "frames", "phones", "plots", "replies", "sandbox", "text", "views"}
)


def _embedded_sandbox() -> SandboxLike:
    from smskit.sandbox import shared  # starlette/uvicorn load when a client first needs it

    return shared()


# Here, above both, the client learns which gateway to use when nothing is configured.
use_local_gateway(_embedded_sandbox)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from smskit._version import __version__

        return __version__
    if name == "Sandbox":
        from smskit.sandbox import Sandbox

        return Sandbox
    if name == "Campaign":  # the bulk machinery loads on first use
        from smskit.campaigns.campaign import Campaign

        return Campaign
    if name in ("Experiment", "ExperimentComparison", "ExperimentResult"):
        from smskit import campaigns  # statsmodels loads when compare() first runs

        return getattr(campaigns, name)
    if name in _CAMPAIGN_TYPES:  # what a Campaign returns, and the spec it is made of
        from smskit import campaigns

        return getattr(campaigns, name)
    if name in _BULK:  # each blocking helper beside its async twin
        from smskit.campaigns import bulk

        return getattr(bulk, name)
    if name == "hlr":  # its former name, too close to client.contact.hlr_request
        warnings.warn(
            "smskit.hlr is renamed smskit.bulk_hlr (one request of up to 200 numbers is "
            "client.contact.hlr_request)",
            DeprecationWarning,
            stacklevel=2,
        )
        from smskit.campaigns.bulk import bulk_hlr

        return bulk_hlr
    if name == "Inbox":  # the replies receiver: Starlette/uvicorn only once it starts
        from smskit.replies.inbox import Inbox

        return Inbox
    if name in _WIDGETS:  # ipywidgets only when a widget is made
        return getattr(importlib.import_module(_WIDGETS[name]), name)
    if name in _LAZY_MODULES:
        return importlib.import_module(f"smskit.{name}")
    raise AttributeError(f"module 'smskit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_LAZY_MODULES})
