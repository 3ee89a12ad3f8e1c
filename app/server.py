"""Running the service: uvicorn with the limits a public service needs.

- ``workers``: processes (default: the number of cores); each holds its own snapshot of the KB.
- A connection must deliver its request headers within ``HEADER_TIMEOUT_S`` (slow-loris clients are
  closed); the body has its own stall timeout (app/api/middleware.py).
- At most ``limit_concurrency`` connections per worker; beyond that uvicorn answers 503.
- No ``server`` banner.
"""
from __future__ import annotations

import os

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
LIMIT_CONCURRENCY = 128
KEEP_ALIVE_S = 5


class HeaderDeadline:
    """A deadline for each request's headers, mixed into one of uvicorn's HTTP protocols."""

    _header_timer = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(HEADER_TIMEOUT_S, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.cycle is None or self.cycle.response_complete:  # still waiting for a request's headers
            if not self.transport.is_closing():
                self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.cycle is None or self.cycle.response_complete:
            self._arm()  # (re)start the clock for the next request's headers
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:
            self._disarm()  # the headers are in: a request cycle runs

    def connection_lost(self, exc) -> None:
        self._disarm()
        super().connection_lost(exc)


class TimedH11Protocol(HeaderDeadline, H11Protocol):
    """uvicorn's pure-Python h11 protocol with the header deadline."""


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools has no wheel for this platform
    HttpToolsProtocol = None


if HttpToolsProtocol is not None:
    class TimedHttpToolsProtocol(HeaderDeadline, HttpToolsProtocol):
        """uvicorn's httptools (C parser) protocol with the header deadline."""


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
        "app.main:app",
        host=host,
        port=port,
        workers=workers or os.cpu_count() or 1,
        http=http_protocol(),
        loop="auto",  # uvloop where it is installed (not on Windows), else asyncio
        server_header=False,
        limit_concurrency=LIMIT_CONCURRENCY,
        timeout_keep_alive=KEEP_ALIVE_S,
        log_level=log_level,
        log_config=log_config(),
    )
