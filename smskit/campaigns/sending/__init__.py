"""Sending: what runs while a campaign goes out, and the file that makes it exactly-once.

Owns: the chunk runner every bulk operation uses and the argument checks they share
(``runner``: concurrency, chunk size, client, recipients the gateway refused taken out of a
chunk), progress as events (``progress``), async work run from sync code and each async
operation's generated blocking twin (``blocking``), the campaign journal (``journal``: the
SQLite file holding the whole plan and every chunk's state, opt-outs withheld at a resume),
what an existing file given as a journal holds (``journal_file``), the one-sender-per-campaign
lease kept in it (``lease``), a client back to the gateway a journal's campaign went to
(``reconnect``), the one typed record of a campaign as journaled and its codec (``record``:
``CampaignRecord``; nothing else reads the journal's meta), and the log of sends made lately
behind a campaign's repeat guard (``repeats``).

May import: ``smskit.client``, ``smskit.rules``, ``smskit.errors`` and the top-level
infrastructure modules. No other room of ``smskit.campaigns``: planning and analysis build
on this room, never the other way round.
"""
