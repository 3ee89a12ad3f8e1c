"""Running the service: uvicorn with the limits a public service needs.

- ``workers``: processes (default: the number of cores); each holds its own snapshot of the KB.
- A connection must deliver its request headers within ``HEADER_TIMEOUT_S`` (slow-loris clients are
  closed); the body has its own stall timeout (app/api/middleware.py).
- Request headers: at most ``MAX_HEADER_BYTES`` in all and ``MAX_HEADERS`` lines; beyond either, 431
  and the connection is closed (httptools buffers a header line of any length; h11 stops at 16 KiB).
- Connections that wait for a request (half-sent headers, idle keep-alives) are not requests: they
  never count towards the 503 limit.  Each client address keeps at most ``IDLE_PER_CLIENT`` of them
  per worker and the worker at most ``IDLE_MAX``; beyond that the oldest waiting connection is
  closed, so one client's idle sockets cannot lock anybody out.
- At most ``LIMIT_CONCURRENCY`` requests in progress per worker (app/api/middleware.py counts them;
  a request still sending its body does not count); beyond that 503 with Retry-After.
- No ``server`` banner.
"""
from __future__ import annotations

import json
import os
from collections import OrderedDict

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
MAX_HEADER_BYTES = 64 * 1024
MAX_HEADERS = 100
IDLE_PER_CLIENT = 32
IDLE_MAX = 256
LIMIT_CONCURRENCY = 128
KEEP_ALIVE_S = 5


class _Waiting:
    """This worker's connections that wait for a request, oldest first, in all and per client address."""

    def __init__(self) -> None:
        self.all: OrderedDict[int, object] = OrderedDict()
        self.by_client: dict[str, OrderedDict[int, object]] = {}

    def __len__(self) -> int:
        return len(self.all)

    def add(self, proto) -> None:
        key, host = id(proto), proto._client_host
        self.all[key] = proto
        self.all.move_to_end(key)
        mine = self.by_client.setdefault(host, OrderedDict())
        mine[key] = proto
        mine.move_to_end(key)
        while len(mine) > IDLE_PER_CLIENT:
            _, old = mine.popitem(last=False)
            self.all.pop(id(old), None)
            old._evict()
        while len(self.all) > IDLE_MAX:
            _, old = self.all.popitem(last=False)
            self._forget(old)
            old._evict()

    def _forget(self, proto) -> None:
        mine = self.by_client.get(proto._client_host)
        if mine is not None:
            mine.pop(id(proto), None)
            if not mine:
                del self.by_client[proto._client_host]

    def discard(self, proto) -> None:
        self.all.pop(id(proto), None)
        self._forget(proto)


WAITING = _Waiting()


def _refusal(status: int, reason: bytes, code: str, message: str) -> bytes:
    body = json.dumps({"error": {"status": status, "code": code, "message": message}}).encode()
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n"
            b"x-content-type-options: nosniff\r\ncontent-security-policy: default-src 'none'\r\n\r\n"
            % (status, reason, len(body))) + body


class HeaderDeadline:
    """Mixed into one of uvicorn's HTTP protocols: a deadline for each request's headers, and the
    bookkeeping of connections that wait for a request (see ``_Waiting``)."""

    _header_timer = None
    _waiting = False
    _refused = False
    _client_host = "?"

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._client_host = str(self.client[0]) if self.client else "?"
        self._arm()
        self._sync_waiting()

    def _idle(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _sync_waiting(self) -> None:
        idle = self._idle() and not self._refused and not self.transport.is_closing()
        if idle and not self._waiting:
            self._waiting = True
            WAITING.add(self)
        elif not idle and self._waiting:
            self._waiting = False
            WAITING.discard(self)

    def _evict(self) -> None:
        """Closed to make room: this connection waited for a request while newer ones came."""
        self._waiting = False
        self._disarm()
        if not self.transport.is_closing():
            self.transport.close()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._idle():  # still waiting for a request's headers
            if not self.transport.is_closing():
                self.transport.close()

    def _refuse(self, status: int, reason: bytes, code: str, message: str) -> None:
        """Answer without running the app and close: nothing more is read from this connection."""
        self._refused = True
        self._disarm()
        if self._waiting:
            self._waiting = False
            WAITING.discard(self)
        if not self.transport.is_closing():
            self.transport.write(_refusal(status, reason, code, message))
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._idle():
            self._arm()  # (re)start the clock for the next request's headers
        super().data_received(data)
        self._after_data(data)
        if not self._refused and not self._idle():
            self._disarm()  # the headers are in: a request cycle runs
        self._sync_waiting()

    def _after_data(self, data: bytes) -> None:
        """Hook for the header limits (httptools)."""

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._sync_waiting()

    def connection_lost(self, exc) -> None:
        self._disarm()
        if self._waiting:
            self._waiting = False
            WAITING.discard(self)
        super().connection_lost(exc)


class TimedH11Protocol(HeaderDeadline, H11Protocol):
    """uvicorn's pure-Python h11 protocol with the header deadline (h11 limits headers to 16 KiB itself)."""


class HeaderLimits:
    """Header size and count limits for uvicorn's httptools protocol, which has none: the bytes of a
    request's head are counted as they arrive (a header line still arriving is counted too), the
    headers as they are parsed; past ``MAX_HEADER_BYTES`` or ``MAX_HEADERS``, 431 and close."""

    _head_open = False
    _head_size = 0  # url and headers parsed so far
    _head_bytes = 0  # raw bytes received while the head was open
    _head_count = 0

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_open, self._head_size, self._head_bytes, self._head_count = True, 0, 0, 0

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4
        self._head_count += 1
        super().on_header(name, value)

    def _head_too_big(self) -> bool:
        return self._head_size > MAX_HEADER_BYTES or self._head_bytes > MAX_HEADER_BYTES + 8192

    def _refuse_head(self) -> None:
        if self._head_count > MAX_HEADERS:
            msg = f"more than {MAX_HEADERS} request header lines"
        else:
            msg = f"the request headers are larger than {MAX_HEADER_BYTES} bytes"
        self._refuse(431, b"Request Header Fields Too Large", "headers_too_large", msg)

    def on_headers_complete(self) -> None:
        self._head_open = False
        if self._refused:
            return
        if self._head_too_big() or self._head_count > MAX_HEADERS:
            self._refuse_head()
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._refused:
            super().on_message_complete()

    def _after_data(self, data: bytes) -> None:
        if self._head_open and not self._refused:
            self._head_bytes += len(data)
            if self._head_too_big() or self._head_count > MAX_HEADERS:
                self._refuse_head()


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools has no wheel for this platform
    HttpToolsProtocol = None


if HttpToolsProtocol is not None:
    class TimedHttpToolsProtocol(HeaderDeadline, HeaderLimits, HttpToolsProtocol):
        """uvicorn's httptools (C parser) protocol with the header deadline and limits."""


def http_protocol() -> type:
    """httptools' C parser (installed with Faultline where it has wheels) with the header deadline,
    else h11: parsing each request in C instead of Python is a good part of a small /match's cost."""
    return TimedHttpToolsProtocol if HttpToolsProtocol is not None else TimedH11Protocol


def log_config() -> dict:
    """uvicorn's logging, plus Faultline's own logger ("faultline": reloads, clients that left, start-up
    repairs) on stderr in the same format; applied in every worker process."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    cfg = copy.deepcopy(LOGGING_CONFIG)
    cfg["loggers"]["faultline"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return cfg


def serve(host: str, port: int, workers: int | None = None, log_level: str = "info") -> None:
    uvicorn.run(
        "faultline.main:app",
        host=host,
        port=port,
        workers=workers or os.cpu_count() or 1,
        http=http_protocol(),
        loop="auto",  # uvloop where it is installed (not on Windows), else asyncio
        server_header=False,
        limit_concurrency=None,  # requests in progress are limited in app/api/middleware.py, not connections
        timeout_keep_alive=KEEP_ALIVE_S,
        log_level=log_level,
        log_config=log_config(),
    )
