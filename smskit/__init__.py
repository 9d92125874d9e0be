"""smskit: drive an SMS gateway from Jupyter, with typed results and an embedded sandbox.

``client = smskit.Client()`` talks to the gateway configured by ``SMSKIT_*`` variables, or to
a local sandbox when none is set. Heavy or optional parts (the sandbox server, plots,
widgets, pandas) are imported only when first used, so ``import smskit`` stays quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smskit import errors
from smskit._imports import import_top_down
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
from smskit.errors import *  # noqa: F403  (each error at the top level too: errors.__all__)

if TYPE_CHECKING:
    from smskit.campaigns import (
        CampaignResult,
        CampaignSpec,
        CostEstimate,
        EarlierSend,
        FrequencyCap,
        PreflightOutline,
        PreflightReport,
    )
    from smskit.campaigns.analysis.comparison import ExperimentComparison
    from smskit.campaigns.bulk.operations import (
        abulk_hlr,
        acreate_contacts,
        adelete_contacts,
        bulk_hlr,
        create_contacts,
        delete_contacts,
    )
    from smskit.campaigns.campaign import Campaign
    from smskit.campaigns.experiment import Experiment, ExperimentResult
    from smskit.client.config import SandboxLike
    from smskit.replies.inbox import Inbox
    from smskit.replies.optouts import OptOuts
    from smskit.rules.bots import AgentRule, BotRules
    from smskit.sandbox import Sandbox
    from smskit.views.composer import Composer
    from smskit.views.dashboard import Dashboard
    from smskit.views.hlr_explorer import HLRExplorer

__all__ = [
    "AgentRule",
    "AsyncClient",
    "Backoff",
    "Balance",
    "BotRules",
    "Campaign",
    "CampaignResult",
    "CampaignSpec",
    "Client",
    "Composer",
    "ContactItem",
    "ContactItems",
    "CostEstimate",
    "CountryCredits",
    "Credits",
    "Dashboard",
    "EarlierSend",
    "Experiment",
    "ExperimentComparison",
    "ExperimentResult",
    "FrequencyCap",
    "HLRExplorer",
    "HLRResult",
    "HLRResults",
    "Inbox",
    "ListEmptied",
    "NetworkDetails",
    "OptOuts",
    "PreflightOutline",
    "PreflightReport",
    "Sandbox",
    "SendResult",
    "SmsDraft",
    "TransferToken",
    "VoiceDraft",
    "WalletPack",
    "__version__",  # noqa: F405  (made on first use: __getattr__)
    "abulk_hlr",
    "acreate_contacts",
    "adelete_contacts",
    "bulk_hlr",
    "create_contacts",
    "delete_contacts",
    "errors",
]
__all__ += errors.__all__

# The bulk helpers, each blocking one beside its async twin.
_BULK = frozenset({"bulk_hlr", "create_contacts", "delete_contacts"})
_BULK |= {"a" + name for name in _BULK}

# Names loaded on first use, each from the module that defines it (or its part's face), so
# that `import smskit` loads no pandas, Starlette, uvicorn or ipywidgets: the campaign
# machinery, what a Campaign returns and the spec it is made of, experiments, the bulk
# helpers, the sandbox, the replies receiver and the notebook widgets.
_LAZY: dict[str, str] = {
    "Campaign": "smskit.campaigns.campaign",
    **dict.fromkeys(
        (
            "CampaignResult",
            "CampaignSpec",
            "CostEstimate",
            "EarlierSend",
            "FrequencyCap",
            "PreflightOutline",
            "PreflightReport",
        ),
        "smskit.campaigns",
    ),
    # statsmodels loads when compare() first runs
    **dict.fromkeys(("Experiment", "ExperimentComparison", "ExperimentResult"), "smskit.campaigns"),
    **dict.fromkeys(_BULK, "smskit.campaigns.bulk"),
    "Sandbox": "smskit.sandbox",
    "Inbox": "smskit.replies.inbox",
    "OptOuts": "smskit.replies.optouts",  # the account's opt-out list (sqlite3 only)
    **dict.fromkeys(("AgentRule", "BotRules"), "smskit.rules.bots"),  # rules of bot clicks
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
    if name in _LAZY:
        return getattr(import_top_down(_LAZY[name]), name)
    if name in _LAZY_MODULES:
        return import_top_down(f"smskit.{name}")
    raise AttributeError(f"module 'smskit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_LAZY_MODULES})
