"""``/mcp`` on the service: the MCP server over streamable HTTP, started on the first request.

The MCP SDK costs each worker about 30 MB of memory and a longer start; a service whose callers never
use ``/mcp`` should not pay it.  So the app's lifespan only holds a task that waits: the first request
to ``/mcp`` imports ``faultline.mcp.server``, builds the server and starts its session manager inside
that task (an anyio task group is entered and left by one task), and every request after it is served
by that manager until the app stops.
"""
from __future__ import annotations

import logging
from contextlib import asynccontextmanager

import anyio
from starlette.responses import JSONResponse

log = logging.getLogger("faultline.mcp")


class _Endpoint:
    """The ASGI app at /mcp: the session manager of the app's current lifespan (the SDK's manager
    runs once, so each start of the app, e.g. each test client, gets a new one)."""

    def __init__(self, app):
        self.app = app
        self.manager = None
        self._wanted: anyio.Event | None = None  # set by the first request
        self._ready: anyio.Event | None = None  # set once the manager runs (or failed to start)
        self._failed: str | None = None

    @asynccontextmanager
    async def running(self):
        """For the app's lifespan: the task that will run the session manager, and its end."""
        self.manager, self._failed = None, None
        self._wanted, self._ready = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._serve, self._wanted, self._ready)  # its own events: a lifespan that ends
            # before the task first runs leaves it nothing to read from self
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
                self.manager, self._wanted, self._ready = None, None, None

    async def _serve(self, wanted: anyio.Event, ready: anyio.Event) -> None:
        await wanted.wait()
        try:
            from faultline.mcp.server import _transport_security, build_server, in_process

            server = build_server(in_process(self.app))
            server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True,
                                       transport_security=_transport_security())
            manager = server.session_manager
        except Exception as exc:  # the SDK is missing or broken: /mcp says so, the rest of the service serves
            log.exception("the MCP endpoint could not start")
            self._failed = f"the MCP endpoint could not start: {type(exc).__name__}"
            ready.set()
            return
        async with manager.run():
            self.manager = manager
            ready.set()
            await anyio.sleep_forever()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("POST", "OPTIONS"):
            # stateless with JSON responses: no server-initiated messages, so no SSE stream (GET) to hold
            # a connection open for ever, and no session to end (DELETE)
            body = {"error": {"status": 405, "code": "method_not_allowed",
                              "message": "the MCP endpoint takes JSON-RPC requests by POST (streamable HTTP, stateless)"}}
            await JSONResponse(body, status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        wanted, ready = self._wanted, self._ready
        if wanted is None or ready is None:  # the app's lifespan has not started (or has ended)
            body = {"error": {"status": 503, "code": "unavailable", "message": "the MCP endpoint is starting"}}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        wanted.set()
        await ready.wait()
        manager = self.manager
        if manager is None:
            body = {"error": {"status": 503, "code": "unavailable",
                              "message": self._failed or "the MCP endpoint is not running"}}
            await JSONResponse(body, status_code=503)(scope, receive, send)
            return
        await manager.asgi_app(scope, receive, send)


def mount(app) -> None:
    """Serve the MCP server on ``app`` at ``/mcp`` (streamable HTTP, stateless, JSON responses, so that
    any worker or replica can answer any request)."""
    from starlette.routing import Route

    endpoint = _Endpoint(app)
    app.router.routes.append(Route("/mcp", endpoint=endpoint))  # /mcp exactly, no redirect to /mcp/
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a):
        async with inner(a) as state:
            async with endpoint.running():
                yield state

    app.router.lifespan_context = lifespan
