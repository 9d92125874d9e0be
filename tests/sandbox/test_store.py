"""The sandbox store's parts: each owns its tables, together they own every table, and a
reset empties all of them."""

from __future__ import annotations

from pathlib import Path

from smskit.sandbox import Sandbox, _store
from smskit.sandbox._store import Store


def _tables(store: Store) -> set[str]:
    with store.db.reading() as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in rows}


def test_every_table_belongs_to_exactly_one_part() -> None:
    """The schema's tables are the parts' TABLES, none claimed twice (reset misses none)."""
    store = Store(None, seed=0, balance=10.0, now=0.0)
    claimed = [table for part in _store._PARTS for table in part.TABLES]
    assert len(claimed) == len(set(claimed))
    assert set(claimed) == _tables(store)


def test_reset_empties_every_part(tmp_path: Path) -> None:
    """After sends, contacts, a blacklist, a token and a reply, reset leaves only the opening
    packs, the default prices and the meta rows of a new account (the same as a fresh file)."""
    path = str(tmp_path / "state.sqlite")
    with Sandbox(path, seed=4) as box:
        box.add_to_blacklist("+33612345678")
        box.simulate_reply("+33612345679", "Hello", wait=False)
        box.set_price("ZZ", "sms_premium", 0.5)
        box._gateway.credit_transfer_token({"email_to": "a@example.org"})
        box._gateway.contact_create({"contacts": [{"phone_number": "+33612345670"}]})
        box.reset()
        store = box._gateway.store
        with store.db.reading() as db:
            counts = {
                t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _tables(store)
            }
    fresh = Store(None, seed=4, balance=box.balance(), now=0.0)
    with fresh.db.reading() as db:
        expected = {
            t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in _tables(fresh)
        }
    assert counts == expected
    assert {t for t, n in counts.items() if n} == {"meta", "prices", "wallet_packs"}
