"""Test helper: whether the server closed a (stalled) connection."""

from __future__ import annotations

import socket


def closed_by_server(sock: socket.socket) -> bool:
    """Read until the server closes (EOF or reset); False if it is still open after 30 s."""
    sock.settimeout(30)
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True
