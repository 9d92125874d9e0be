"""The rule book: every gateway rule, written once, as pure functions.

Owns: the spec's closed value sets and limits (``spec``), the GSM-7/UCS-2 text engine
(``text`` for one text, ``personalize`` for a template filled per recipient, ``batch`` and
its numpy path ``textvec`` for many, ``gsm``), phone-number reading and normalisation
(``phones``), country names (``countries``), and the rules that the client, campaigns,
views, CLI and sandbox all ask (recipients, sender, STOP, purpose, hours, destinations and
prices as the gateway reports them, findings as codes, the default region ``region``,
the gateway's answers where the spec leaves their shape open ``answers``, recipients given
as pyarrow or polars objects read through Arrow ``arrowinput``, callback kinds
and delivery statuses ``callbacks``, CSV files read whole or refused ``csvtext``, a file's
path and a table given as its CSV or Parquet file ``files``, a path naming a pipe, socket or
device refused before it is opened ``filekind``, first use
from many threads ``once``, tracked links and the fields that carry them ``links``, the rules
that tell bots' clicks from people's ``bots``, which hosts are this machine ``hosts``), and
the one JSON spelling request bodies are posted in and ids are derived from (``canonical``),
and the range checks of the counts, limits and waits callers pass (``ranges``).

May import: the standard library, pandas/numpy/pyarrow/phonenumbers/regex, and ``smskit.errors``
(polars never: a polars object the user passed is read through its own ``.to_arrow()``).
Never the client, campaigns, views, replies or sandbox, and no I/O.
"""
