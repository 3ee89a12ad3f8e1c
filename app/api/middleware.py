"""One pure-ASGI layer in front of every route: HEAD, security headers, and a body-read timeout.

- ``HEAD`` is answered for every ``GET`` route (the GET response without its body).
- Every response carries the security headers below; HTML pages and /docs set their own
  Content-Security-Policy, everything else gets the strictest one.
- A request body that stops arriving for ``body_timeout`` seconds gets 408 and the connection
  is closed, so a slow client cannot hold a worker (the header-read timeout is in app/server.py).
"""
from __future__ import annotations

import asyncio

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


class Edge:
    def __init__(self, app, body_timeout: float = BODY_TIMEOUT_S):
        self.app = app
        self.body_timeout = body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        head = scope["method"] == "HEAD"
        if head:
            scope = dict(scope, method="GET")
        csp = DOCS_CSP if scope["path"] == "/docs" else DEFAULT_CSP

        async def send_wrapped(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"server"]
                names = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", csp))
                message = dict(message, headers=headers)
            elif head and message["type"] == "http.response.body":
                message = dict(message, body=b"")
            await send(message)

        body_done = False

        async def receive_timed():
            # while the body is arriving, a stall counts as the client going away (starlette raises
            # ClientDisconnect, answered with 408 in app/api/problems.py); afterwards, wait as long as needed
            nonlocal body_done
            if body_done:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.body_timeout)
            except asyncio.TimeoutError:
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                body_done = True
            return message

        await self.app(scope, receive_timed, send_wrapped)
