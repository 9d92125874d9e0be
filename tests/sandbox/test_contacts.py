"""Contacts, lists, tags and blacklist over HTTP: create, delete, empty a list."""

from __future__ import annotations

from typing import Any

import httpx

from smskit.sandbox import Sandbox

CREATE = "/v1/public/contact/create"
DELETE = "/v1/public/contact/delete"
EMPTY = "/v1/public/contact-list/empty"
A, B, C = "+33612345678", "+33612345679", "+32470123456"


def state(client: httpx.Client) -> dict[str, Any]:
    """Contacts (by number) and list sizes, through the control route."""
    data = client.get("/_sandbox/contacts").json()
    return {"contacts": {c["phone_number"]: c for c in data["contacts"]}, "lists": data["lists"]}


def delete(client: httpx.Client, **payload: Any) -> httpx.Response:
    """DELETE with a JSON body."""
    return client.request("DELETE", DELETE, json=payload)


def test_create_reports_added_then_updated(fresh_api: httpx.Client) -> None:
    """New numbers are 'added'; the same numbers again are 'updated' and overwritten."""
    first = fresh_api.post(CREATE, json={"contacts": [{"phone_number": A, "first_name": "Ada"}, B]})
    assert first.status_code == 201
    assert [i["status"] for i in first.json()["items"]] == ["added", "added"]
    again = fresh_api.post(CREATE, json={"contacts": [{"phone_number": A, "first_name": "Grace"}]})
    assert again.json()["items"] == [{"phone_number": A, "email": "", "status": "updated"}]
    assert state(fresh_api)["contacts"][A]["first_name"] == "Grace"


def test_do_not_overwrite_skips_existing(fresh_api: httpx.Client) -> None:
    """do_not_overwrite=true: an existing number is 'skipped' and left unchanged."""
    fresh_api.post(CREATE, json={"contacts": [{"phone_number": A, "first_name": "Ada"}]})
    payload = {
        "contacts": [{"phone_number": A, "first_name": "Grace"}, B],
        "do_not_overwrite": "true",
    }
    items = fresh_api.post(CREATE, json=payload).json()["items"]
    assert [(i["phone_number"], i["status"]) for i in items] == [(A, "skipped"), (B, "added")]
    assert state(fresh_api)["contacts"][A]["first_name"] == "Ada"


def test_update_keeps_fields_not_given(fresh_api: httpx.Client) -> None:
    """An update overwrites the fields it carries and keeps the others."""
    fresh_api.post(
        CREATE, json={"contacts": [{"phone_number": A, "first_name": "Ada", "param1": "x"}]}
    )
    fresh_api.post(CREATE, json={"contacts": [{"phone_number": A, "last_name": "Lovelace"}]})
    contact = state(fresh_api)["contacts"][A]
    assert (contact["first_name"], contact["last_name"], contact["param1"]) == (
        "Ada",
        "Lovelace",
        "x",
    )


def test_email_is_returned_and_validated(fresh_api: httpx.Client) -> None:
    """An item's email is stored and echoed ('' when absent); a malformed one is 412."""
    items = fresh_api.post(
        CREATE, json={"contacts": [{"phone_number": A, "email": "ada@example.org"}, B]}
    ).json()["items"]
    assert [i["email"] for i in items] == ["ada@example.org", ""]
    bad = fresh_api.post(CREATE, json={"contacts": [{"phone_number": A, "email": "ada@"}]})
    assert bad.status_code == 400
    assert bad.json()["errors"]["contacts[0].email"]["code"] == 412


def test_list_and_tag_are_attached(fresh_api: httpx.Client) -> None:
    """list_name and tag_name apply to every contact added or updated."""
    payload = {"contacts": [A, B], "list_name": "vip", "tag_name": "spring"}
    fresh_api.post(CREATE, json=payload)
    seen = state(fresh_api)
    assert seen["lists"] == {"vip": 2}
    assert seen["contacts"][A]["lists"] == ["vip"]
    assert seen["contacts"][B]["tags"] == ["spring"]


def test_name_lengths_are_limited(fresh_api: httpx.Client) -> None:
    """list_name over 30 and tag_name over 20 characters are 411."""
    payload = {"contacts": [A], "list_name": "l" * 31, "tag_name": "t" * 21}
    errors = fresh_api.post(CREATE, json=payload).json()["errors"]
    assert errors["list_name"]["code"] == 411
    assert errors["tag_name"]["code"] == 411
    ok = fresh_api.post(CREATE, json={"contacts": [A], "list_name": "l" * 30, "tag_name": "t" * 20})
    assert ok.status_code == 201


def test_blacklisted_numbers_are_skipped_on_request(
    fresh_sandbox: Sandbox, fresh_api: httpx.Client
) -> None:
    """auto_remove_blacklisted_numbers=true: a blacklisted number is 'skipped', not stored."""
    fresh_sandbox.add_to_blacklist([B])
    payload = {"contacts": [A, B], "auto_remove_blacklisted_numbers": True, "list_name": "l"}
    items = fresh_api.post(CREATE, json=payload).json()["items"]
    assert [i["status"] for i in items] == ["added", "skipped"]
    assert set(state(fresh_api)["contacts"]) == {A}
    kept = fresh_api.post(CREATE, json={"contacts": [B]}).json()["items"]
    assert kept[0]["status"] == "added", "without the option a blacklisted number is stored"


def test_create_validates_contacts(fresh_api: httpx.Client) -> None:
    """No contacts is 410; 501 is 411; a bad number is 412 naming the item."""
    assert fresh_api.post(CREATE, json={}).json()["errors"]["contacts"]["code"] == 410
    many = [f"+336{n:08d}" for n in range(501)]
    assert (
        fresh_api.post(CREATE, json={"contacts": many}).json()["errors"]["contacts"]["code"] == 411
    )
    errors = fresh_api.post(CREATE, json={"contacts": [A, "06 12"]}).json()["errors"]
    assert errors == {
        "contacts[1].phone_number": {
            "code": 412,
            "message": errors["contacts[1].phone_number"]["message"],
        }
    }


def test_delete_from_account(fresh_api: httpx.Client) -> None:
    """Delete without list_name removes the contacts from the account: 204, no body."""
    fresh_api.post(CREATE, json={"contacts": [A, B, C], "list_name": "vip"})
    response = delete(fresh_api, phone_numbers=[A, B, "+33600000000"])
    assert response.status_code == 204
    assert response.content == b""
    seen = state(fresh_api)
    assert set(seen["contacts"]) == {C}
    assert seen["lists"] == {"vip": 1}


def test_delete_from_one_list_keeps_contact(fresh_api: httpx.Client) -> None:
    """Delete with list_name only removes the membership of that list."""
    fresh_api.post(CREATE, json={"contacts": [A], "list_name": "one"})
    fresh_api.post(CREATE, json={"contacts": [A], "list_name": "two"})
    assert delete(fresh_api, phone_numbers=[A], list_name="one").status_code == 204
    seen = state(fresh_api)
    assert seen["contacts"][A]["lists"] == ["two"]
    assert seen["lists"] == {"one": 0, "two": 1}


def test_delete_limits(fresh_api: httpx.Client) -> None:
    """1 to 200 numbers: 0 is 410, 201 is 411, 200 is fine; an unknown list has nothing to do."""
    assert delete(fresh_api, phone_numbers=[]).json()["errors"]["phone_numbers"]["code"] == 410
    many = [f"+336{n:08d}" for n in range(201)]
    assert delete(fresh_api, phone_numbers=many).json()["errors"]["phone_numbers"]["code"] == 411
    assert delete(fresh_api, phone_numbers=many[:200]).status_code == 204
    fresh_api.post(CREATE, json={"contacts": [A]})
    assert delete(fresh_api, phone_numbers=[A], list_name="nope").status_code == 204
    assert set(state(fresh_api)["contacts"]) == {A}, "deleting from an unknown list keeps it"


def test_delete_accepts_query_parameters(fresh_api: httpx.Client) -> None:
    """Clients that cannot send a DELETE body may pass phone_numbers[] in the query."""
    fresh_api.post(CREATE, json={"contacts": [A, B]})
    response = fresh_api.delete(DELETE, params={"phone_numbers[]": [A]})
    assert response.status_code == 204
    assert set(state(fresh_api)["contacts"]) == {B}


def test_empty_list(fresh_api: httpx.Client) -> None:
    """Emptying a list answers 200 with how many were removed; contacts stay in the account."""
    fresh_api.post(CREATE, json={"contacts": [A, B], "list_name": "vip"})
    response = fresh_api.post(EMPTY, json={"list_name": "vip"})
    assert response.status_code == 200
    assert response.json() == {"list_name": "vip", "number_of_contacts_removed": 2}
    seen = state(fresh_api)
    assert seen["lists"] == {"vip": 0}
    assert set(seen["contacts"]) == {A, B}
    again = fresh_api.post(EMPTY, json={"list_name": "vip"}).json()
    assert again["number_of_contacts_removed"] == 0


def test_empty_unknown_or_blank_list(fresh_api: httpx.Client) -> None:
    """An unknown list is empty already (0 removed); a missing name is 410; over 30 is 411."""
    assert fresh_api.post(EMPTY, json={"list_name": "nope"}).json() == {
        "list_name": "nope",
        "number_of_contacts_removed": 0,
    }
    assert fresh_api.post(EMPTY, json={}).json()["errors"]["list_name"]["code"] == 410
    assert (
        fresh_api.post(EMPTY, json={"list_name": "x" * 31}).json()["errors"]["list_name"]["code"]
        == 411
    )


def test_number_twice_in_one_request(fresh_api: httpx.Client) -> None:
    """Items are applied in order: a number repeated in one request is added, then updated."""
    payload = {
        "contacts": [
            {"phone_number": A, "first_name": "Ada"},
            {"phone_number": A, "first_name": "Bo"},
        ]
    }
    items = fresh_api.post(CREATE, json=payload).json()["items"]
    assert [i["status"] for i in items] == ["added", "updated"]
    assert state(fresh_api)["contacts"][A]["first_name"] == "Bo"


def test_empty_names_count_as_absent(fresh_api: httpx.Client) -> None:
    """list_name and tag_name given as empty strings are ignored (no list, no tag)."""
    fresh_api.post(CREATE, json={"contacts": [A], "list_name": "", "tag_name": "  "})
    seen = state(fresh_api)
    assert seen["lists"] == {}
    assert (seen["contacts"][A]["lists"], seen["contacts"][A]["tags"]) == ([], [])
