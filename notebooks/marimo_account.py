import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="smskit: lines and account, in marimo")


@app.cell
def _():
    import marimo as mo

    import smskit

    return mo, smskit


@app.cell
def _(mo):
    mo.md(
        """
        # Check lines and read the account, in marimo

        smskit's `HLRExplorer` and `Dashboard` are [anywidgets](https://anywidget.dev), the
        same widgets as in JupyterLab. Everything runs on smskit's **embedded sandbox** (a
        local gateway on 127.0.0.1): nothing leaves the machine and no credit is spent.

        Paste numbers and press *check*: the explorer asks the gateway about each line (an
        HLR lookup), counts the answers per country and line status, and the filters narrow
        the table, the bars and the CSV export.
        """
    )
    return


@app.cell
def _(smskit):
    sandbox = smskit.Sandbox(seed=3).start()
    client = smskit.Client(sandbox=sandbox)
    return (client,)


@app.cell
def _(client, mo, smskit):
    explorer = mo.ui.anywidget(
        smskit.HLRExplorer(
            client,
            ["+33612345678", "06 12 34 56 78", "+447400123456", "+4915123456789"],
            journal=False,
        )
    )
    explorer
    return (explorer,)


@app.cell
def _(explorer, mo):
    # Runs again whenever the explorer's state changes (a check, a filter): read from Python.
    mo.md(
        f"**From Python:** `{explorer.widget!r}`; filters: {explorer.value['country']} / "
        f"{explorer.value['line_status']}."
    )
    return


@app.cell
def _(mo):
    mo.md(
        """
        The account at a glance: the balance and its packs (those expiring soon marked),
        credits by country (table and map), the current drafts. *refresh* asks the gateway
        again.
        """
    )
    return


@app.cell
def _(client, mo, smskit):
    dashboard = mo.ui.anywidget(smskit.Dashboard(client))
    dashboard
    return


if __name__ == "__main__":
    app.run()
