"""Size caps of the gateway: what one call may carry in and out, and what the chat log keeps.

A harness shares the host's memory and disk through the gateway, so nothing it sends is
held whole before it is known to fit: an oversized body is refused from its Content-Length
and then discarded as it arrives (bounded in bytes and time), never read into memory.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from io import BufferedIOBase

TOO_LARGE_STATUS = 413  # not retried by OpenAI clients
DRAIN_CHUNK = 65536


@dataclass(frozen=True)
class GatewayLimits:
    request_max: int = 16_000_000
    """Bytes of one request body; a longer one is refused (413) before it is read."""
    response_max: int = 16_000_000
    """Bytes of one answer (or one stream) passed back; past it the call ends in an error."""
    chat_log_max: int = 32_000_000
    """Bytes of chat.jsonl; calls past it are left out, after one line saying so."""
    drain_max: int = 1_000_000_000
    """Bytes of a refused body read and dropped so the client sees the refusal; past them
    (or `drain_s`) the connection is closed instead."""
    drain_s: float = 10.0
    """Seconds spent dropping a refused body."""


def too_large(what: str, size: int, cap: int, advice: str) -> str:
    """The one sentence a harness gets for an oversized request or answer."""
    return f"{what} is {size:,} bytes, over the gateway's cap of {cap:,} bytes; {advice}."


def content_length(header: str | None) -> int | None:
    """The declared body size (0 when absent), or None when it is not a byte count."""
    if header is None:
        return 0
    text = header.strip()
    return int(text) if text.isdigit() else None


def drain(stream: BufferedIOBase, conn: socket.socket, length: int, limits: GatewayLimits) -> None:
    """Read and drop up to `length` bytes of a refused body, within the drain bounds."""
    deadline = time.monotonic() + limits.drain_s
    left = min(length, limits.drain_max)
    try:
        while left > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            conn.settimeout(remaining)
            chunk = stream.read(min(DRAIN_CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)
    except OSError:
        return
