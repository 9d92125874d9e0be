"""Render the notebook HTML of smskit objects from the jinja2 templates in ``smskit/templates``.

The environment is built once, on first use, with autoescaping on: every value shown comes
from the gateway or the user and must never be interpreted as markup.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2


@cache
def environment() -> jinja2.Environment:
    """The one jinja2 environment (imported lazily: ``import smskit`` stays light)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("smskit", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render(template: str, /, **context: Any) -> str:
    """The HTML of ``template`` (a file name in ``smskit/templates``) with ``context``."""
    return environment().get_template(template).render(**context)
