import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium", app_title="smskit: compose and send a campaign")


@app.cell
def _():
    import tempfile
    from pathlib import Path

    import marimo as mo
    import pandas as pd

    import smskit

    return Path, mo, pd, smskit, tempfile


@app.cell
def _(mo):
    mo.md(
        """
        # Compose and send a campaign, in marimo

        smskit's `Composer` is an [anywidget](https://anywidget.dev): the same widget as in
        JupyterLab, wrapped by `mo.ui.anywidget` so that the cells below follow what you
        type. Everything runs on smskit's **embedded sandbox** (a local gateway on
        127.0.0.1): nothing leaves the machine and no credit is spent.

        Type in the editor: characters that force UCS-2 (a curly apostrophe ’) are marked
        in place, the meter counts the units of the segment, the phone shows the first
        recipients' messages. *estimate cost* asks the gateway what it would cost; *send*
        asks you to confirm first.
        """
    )
    return


@app.cell
def _(Path, smskit, tempfile):
    sandbox = smskit.Sandbox(seed=3).start()
    client = smskit.Client(sandbox=sandbox)
    journal = Path(tempfile.mkdtemp()) / "marimo-sale.journal.sqlite"
    return client, journal


@app.cell
def _(pd):
    recipients = pd.DataFrame(
        {
            "phone_number": [
                "+33612345678", "06 12 34 56 79", "+33612345680", "+33123456789",
                "+32450001234", "+41781234567", "+4915123456789", "+447400123456",
            ],
            "first_name": ["Camille", "Léa", "Inès", "Hugo", "Lotte", "Luca", "Jonas", "Amelia"],
        }
    )
    return (recipients,)


@app.cell
def _(client, journal, mo, recipients, smskit):
    composer = mo.ui.anywidget(
        smskit.Composer(
            client,
            recipients,
            text="Bonjour {first_name}, l’été arrive : -20 % ce week-end ! STOP au 36173",
            sender="MyShop",
            send_at="2030-06-04T10:00:00+02:00",
            journal=journal,
        )
    )
    composer
    return (composer,)


@app.cell
def _(composer, mo):
    # Runs again whenever the widget's state changes: the same figures, from Python.
    _summary = composer.value["summary"]
    _meter = composer.value["state"]["meter"] or {}
    mo.md(
        f"""
        **From Python:** {_summary["to_send"]} recipient(s) to send, {_summary["sms"]} SMS,
        {_meter.get("encoding", "?")} in {_meter.get("segments", "?")} segment(s);
        ready to send: **{composer.widget.ready}**.
        """
    )
    return


@app.cell
def _(mo):
    mo.md(
        """
        marimo re-runs the cell above when the widget changes (typing, the options, a
        button); what a button did is on the widget itself: `composer.widget.result`,
        `composer.widget.cost_estimate` and `composer.widget.sends` (every campaign sent from
        it, each with its name, journal and result).
        """
    )
    return


if __name__ == "__main__":
    app.run()
