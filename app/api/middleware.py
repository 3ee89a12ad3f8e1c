"""One pure-ASGI layer in front of every route: HEAD, security headers, and a body-read timeout.

- ``HEAD`` is answered for every ``GET`` route (the GET response without its body).
- Every response carries the security headers below; HTML pages and /docs set their own
  Content-Security-Policy, everything else gets the strictest one.
- A request body that stops arriving for ``body_timeout`` seconds gets 408 and the connection
  is closed, so a slow client cannot hold a worker (the header-read timeout is in app/server.py).
- At most ``limit`` requests are in progress at once (per worker process); beyond that 503 with
  ``Retry-After``.  A request still sending its body does not count (it costs a coroutine, and the
  body timeout bounds it); idle connections are not requests at all (app/server.py bounds them).
- A response the client stops reading for ``send_timeout`` seconds is abandoned and the connection
  closed, so a client cannot hold a request open by not reading.
"""
from __future__ import annotations

import asyncio
import sys

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
DEFAULT_CSP = b"default-src 'none'; frame-ancestors 'none'; base-uri 'none'"
# Swagger UI (served from /docs-assets) starts itself with one inline script
DOCS_CSP = (b"default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
            b"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'")
BODY_TIMEOUT_S = 15.0
SEND_TIMEOUT_S = 30.0
SWITCH_INTERVAL_S = 0.001
LIMIT_REQUESTS = 128
_BUSY = (b'{"error": {"status": 503, "code": "busy", "message": "the service has too many requests in progress; '
         b'retry in a moment"}}')


class _SendTimeout(Exception):
    """The client stopped reading the response."""


if sys.version_info >= (3, 11):
    async def _within(aw, seconds: float):
        """``await aw``, or TimeoutError after ``seconds`` (in this task: no task is made for it)."""
        async with asyncio.timeout(seconds):
            return await aw
else:  # pragma: no cover - Python 3.10
    def _within(aw, seconds: float):
        return asyncio.wait_for(aw, seconds)


def _has_body(scope) -> bool:
    for k, v in scope.get("headers", ()):
        if k == b"content-length":
            return v.strip() not in (b"", b"0")
        if k == b"transfer-encoding":
            return True
    return False


class Edge:
    def __init__(self, app, body_timeout: float = BODY_TIMEOUT_S, limit: int = LIMIT_REQUESTS,
                 send_timeout: float = SEND_TIMEOUT_S):
        self.app = app
        self.body_timeout = body_timeout
        self.limit = limit
        self.send_timeout = send_timeout
        self.in_progress = 0  # requests past their body (or without one), in this process
        # a big paste is matched in a worker thread, which holds the GIL for up to the switch interval
        # at a time (5 ms by default) each time the event loop wants it back: a request on the loop
        # (/healthz) waits for it several times.  1 ms keeps the loop answering within milliseconds
        # while a match runs, for a few percent of the match's own speed.
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        head = scope["method"] == "HEAD"
        if head:
            scope = dict(scope, method="GET")
        csp = DOCS_CSP if scope["path"] == "/docs" else DEFAULT_CSP

        body_done = not _has_body(scope)
        if self.in_progress >= self.limit:
            await self._busy(send)
            return
        counted = body_done
        if counted:
            self.in_progress += 1
        timed_out = False

        async def send_wrapped(message):
            nonlocal timed_out
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                names = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", csp))
                message = dict(message, headers=headers)
            elif head and message["type"] == "http.response.body":
                message = dict(message, body=b"")
            if message["type"] == "http.response.body" and message.get("body"):
                try:
                    await _within(send(message), self.send_timeout)
                except asyncio.TimeoutError:
                    timed_out = True
                    raise _SendTimeout() from None
                return
            await send(message)

        async def receive_timed():
            # while the body is arriving, a stall counts as the client going away (starlette raises
            # ClientDisconnect, answered with 408 in app/api/problems.py); afterwards, wait as long as needed
            nonlocal body_done, counted
            if body_done:
                return await receive()
            try:
                message = await _within(receive(), self.body_timeout)
            except asyncio.TimeoutError:
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
                if not counted:  # the body is in: from now on this request costs the worker
                    counted = True
                    self.in_progress += 1
            return message

        try:
            await self.app(scope, receive_timed, send_wrapped)
        except Exception:
            if not timed_out:
                raise
            # the client stopped reading: give up on it (uvicorn closes the connection)
        finally:
            if counted:
                self.in_progress -= 1

    async def _busy(self, send) -> None:
        await send({"type": "http.response.start", "status": 503,
                    "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1"),
                                (b"content-length", str(len(_BUSY)).encode()), *SECURITY_HEADERS,
                                (b"content-security-policy", DEFAULT_CSP)]})
        await send({"type": "http.response.body", "body": _BUSY})
