"""The gateway spec's closed value sets and numeric limits, in spec order.

One source of truth for the client, the sandbox and the frames (categorical dtypes keep
spec order so breakdowns list every value, zero rows included). Pure constants.
"""

from __future__ import annotations

from typing import Final

# "States and transitions" table.
HLR_STATUS: Final = ("valid", "invalid", "operator_is_not_available", "unknown")
LINE_STATUS: Final = (
    "live",
    "dead",
    "absent_subscriber",
    "no_teleservice_provisioned",
    "not_available_network_only",
    "no_coverage",
    "not_applicable",
    "inconclusive",
)
PHONE_NUMBER_TYPE: Final = (
    "bad_format",
    "mobile",
    "landline",
    "mobile_or_landline",
    "toll_free",
    "premium",
    "shared_cost",
    "voip",
    "stage_and_screen",
    "pager",
    "universal_access_number",
    "personal_number",
    "voicemail_only",
    "unknown",
)
CONTACT_ITEM_STATUS: Final = ("added", "updated", "skipped")

# The spec's HLR example spells `inconclusive` as `inconcusive`; parsers accept both.
LINE_STATUS_ALIASES: Final = {"inconcusive": "inconclusive"}

# Request enums (endpoint 1 and 6).
SMS_TYPES: Final = ("sms_premium", "sms_low_cost")
PURPOSES: Final = ("alert", "wholesale")
PRODUCTS: Final = ("sms_low_cost", "sms_premium", "vocal_sms", "hlr")
# The products of the "Credits per country" answer, in its order.
CREDIT_PRODUCTS: Final = ("premium_sms", "vocal_sms", "low_cost_sms", "hlr")

# "Limits" table.
TEXT_MAX: Final = 1224
RECIPIENTS_MAX: Final = 500
SENDER_MIN: Final = 3
SENDER_MAX: Final = 11
FIELD_MAX: Final = 50
LIST_NAME_MAX: Final = 30
TAG_NAME_MAX: Final = 20
HLR_MAX: Final = 200
DELETE_MAX: Final = 200
REQUEST_ID_TTL_HOURS: Final = 24
# Not in the spec: the sandbox's limit on request_id (docs/sandbox.md). The client never posts
# a longer one, so a refusal naming request_id can only mean "already used".
REQUEST_ID_MAX: Final = 255
BLACKLIST_REMOVAL_FEE_EUR: Final = 0.01
