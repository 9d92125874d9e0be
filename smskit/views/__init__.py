"""Notebook views: widgets (Composer, HLRExplorer, Dashboard) and plotly figures.

Owns: rendering only. Every number shown comes from the rules, the client or campaigns. The
HTML reprs of results live with the results (``smskit.client.reprs``, campaign reports) and
share the templates and house style of ``smskit._html``.

May import: everything below it (rules, client, campaigns, replies), never the sandbox.
Imported lazily: plotly and anywidget load only when a figure or widget is made. Maps carry
their country shapes (``geo``, files in ``topojson/``): nothing is fetched from a CDN.
"""
