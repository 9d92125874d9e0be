"""The rule book: every gateway rule, written once, as pure functions.

Owns: the spec's closed value sets and limits (``spec``), the GSM-7/UCS-2 text engine
(``text``, ``gsm``, ``textvec``), phone-number reading and normalisation (``phones``), and the
rules that the client, campaigns, views, CLI and sandbox all ask (recipients, sender, STOP,
purpose, hours, destinations and prices as the gateway reports them, findings as codes).

May import: the standard library, pandas/numpy/phonenumbers/regex, and ``smskit.errors``.
Never the client, campaigns, views, replies or sandbox, and no I/O.
"""
