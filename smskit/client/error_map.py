"""An error answer of the gateway as the matching :class:`~smskit.errors.APIError` subclass.

Pure: reads a response already received (status, JSON body, ``Retry-After``) and returns the
exception to raise; the clients in :mod:`smskit.client.clients` do the raising and retrying.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from smskit.errors import (
    CODE_INSUFFICIENT_CREDIT,
    CODE_PAYLOAD_VALIDATION,
    CODE_STOP_MISSING,
    APIError,
    AuthenticationError,
    DuplicateRequestError,
    InsufficientCreditError,
    NoRecipientError,
    NotFoundError,
    PayloadValidationError,
    RateLimitError,
    ServerError,
    StopMentionMissingError,
)
from smskit.rules.answers import is_duplicate_request_id, is_no_recipient

if TYPE_CHECKING:
    import httpx


def error_from_response(response: httpx.Response, request: httpx.Request) -> APIError:
    """The :class:`APIError` subclass for an error answer, with the gateway's code and message."""
    try:
        body = response.json()
    except ValueError:
        body = None
    info: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    code = info.get("code") if isinstance(info.get("code"), int) else None
    errors: Mapping[str, Any] = info.get("errors") or {}
    if not isinstance(errors, Mapping):
        errors = {}
    message = str(info.get("message") or response.reason_phrase or "error")
    if body is None and response.text.strip():
        message += f": {response.text.strip()[:200]}"
    status = response.status_code
    error = _error_class(status, code, errors)(
        message, status_code=status, code=code, errors=errors, request=request, response=response
    )
    if isinstance(error, RateLimitError):
        error.retry_after = retry_after_seconds(response.headers.get("retry-after"))
    return error


def _error_class(status: int, code: int | None, errors: Mapping[str, Any]) -> type[APIError]:
    if status == 429:
        return RateLimitError
    if status in (401, 403):
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status >= 500:
        return ServerError
    if status not in (400, 422):
        return APIError
    if is_duplicate_request_id(code, errors):  # errors.request_id, or the vendor's code 120
        return DuplicateRequestError
    if is_no_recipient(errors):
        return NoRecipientError
    by_code: dict[int | None, type[APIError]] = {
        CODE_STOP_MISSING: StopMentionMissingError,
        CODE_INSUFFICIENT_CREDIT: InsufficientCreditError,
        CODE_PAYLOAD_VALIDATION: PayloadValidationError,
    }
    return by_code.get(code, PayloadValidationError if errors else APIError)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date)."""
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime  # rarely needed; the email package is slow

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max((when - datetime.now(when.tzinfo)).total_seconds(), 0.0)
