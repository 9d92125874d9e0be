"""Notebook views: widgets (Composer, HLRExplorer, Dashboard), plotly figures, HTML reprs.

Owns: rendering only. Every number shown comes from the rules, the client or campaigns.

May import: everything below it (rules, client, campaigns). Imported lazily: plotly and
ipywidgets load only when a figure or widget is made.
"""
