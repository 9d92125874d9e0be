"""Modules renamed by issue #28 item 5: the old names still work for one release, each use
warning (DeprecationWarning) with the new name, and giving the very object the new module has."""

from __future__ import annotations

import importlib

import pytest

# old module, a name a user could have imported from it, the module that now defines it
RENAMED = [
    ("smskit.client.tables", "hlr_table", "smskit.client.frame_builders"),
    ("smskit.views.tables", "percentages", "smskit.views.percentages"),
    ("smskit.views.compose", "compose_panel", "smskit.views.pure_panel"),
    ("smskit.dask.rules", "normalize", "smskit.dask.partitionwise"),
    ("smskit.dask.bulk", "HLRParquet", "smskit.dask.hlr"),
    ("smskit.dask.partitions", "check_partition", "smskit.dask.partition_preflight"),
    ("smskit.campaigns.runner", "run_blocking", "smskit.campaigns.blocking"),
    ("smskit.campaigns.runner", "async_client", "smskit.campaigns.blocking"),
    ("smskit.campaigns.runner", "check_concurrency", "smskit.campaigns.arguments"),
    ("smskit.campaigns.runner", "without_refused", "smskit.campaigns.refusals"),
    ("smskit.campaigns.runner", "ProgressEvents", "smskit.campaigns.progress"),
]


@pytest.mark.parametrize(("old", "name", "new"), RENAMED)
def test_an_old_module_path_warns_and_gives_the_new_object(old: str, name: str, new: str) -> None:
    """``old.name`` warns naming ``new.name`` and is the object ``new`` defines."""
    module = importlib.import_module(old)
    with pytest.warns(
        DeprecationWarning, match=rf"{old}\.{name} is deprecated: moved to {new}\.{name}"
    ):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)


def test_from_import_of_an_old_path_warns_at_the_importing_line() -> None:
    """``from smskit.views.tables import percentages`` warns, attributed to this file."""
    with pytest.warns(DeprecationWarning) as caught:
        from smskit.views.tables import percentages  # noqa: F401
    assert caught[0].filename == __file__


def test_a_name_the_new_module_lacks_is_an_attribute_error_without_warning() -> None:
    """An old path gives only the new module's public names; anything else is missing."""
    import warnings

    module = importlib.import_module("smskit.views.tables")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no_such_name"):
            module.no_such_name  # noqa: B018
        with pytest.raises(AttributeError):
            module._formatters  # noqa: B018


def test_the_runner_module_keeps_only_the_runner() -> None:
    """``campaigns.runner`` defines run_chunks alone; its plumbing lives in its own modules."""
    runner = importlib.import_module("smskit.campaigns.runner")
    assert runner.__all__ == ["run_chunks"]
    with pytest.raises(AttributeError):
        runner.not_moved  # noqa: B018


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("normalize", "smskit.phones.normalize"),
        ("render_all", "smskit.text.render_all"),
        ("analyze_many", "smskit.text.analyze_many"),
    ],
)
def test_smskit_dask_s_second_spellings_warn_and_name_the_one_to_use(
    name: str, instead: str
) -> None:
    """smskit.dask.normalize/render_all/analyze_many left ``__all__``; each still works for
    one release, warning with the facade function that takes Dask input."""
    import smskit.dask
    from smskit.dask import partitionwise

    assert name not in smskit.dask.__all__
    with pytest.warns(
        DeprecationWarning, match=rf"smskit\.dask\.{name} is deprecated: use {instead}"
    ):
        value = getattr(smskit.dask, name)
    assert value is getattr(partitionwise, name)
