"""Debian's chromium as every browser test (and the README picture scripts) starts it.

As root on a closed network: no sandbox, no GPU, and none of the background connections
that would be refused (the machine reaches only loopback and package registries).
"""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)

# JupyterLab, asked from the page: the notebook is open with its kernel ready ...
NOTEBOOK_READY = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return Boolean(panel && panel.content && panel.context && panel.context.isReady
    && panel.sessionContext && panel.sessionContext.isReady
    && panel.sessionContext.session && panel.sessionContext.session.kernel);
}"""
# ... and, after "Run all", every code cell has run and the kernel is idle.
ALL_EXECUTED = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');
  return cells.length > 0 && cells.every(cell => cell.model.executionCount !== null)
    && panel.sessionContext.session.kernel.status === 'idle';
}"""
