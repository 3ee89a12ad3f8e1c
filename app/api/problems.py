"""Clear JSON errors for every failure: {"error": {"status", "code", "message"}}."""
from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect
from starlette.exceptions import HTTPException as StarletteHTTPException

from faultline.i18n.negotiate import UnsupportedLanguage

log = logging.getLogger("faultline")


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **extra):
        self.status, self.code, self.message, self.extra = status, code, message, extra
        super().__init__(message)


def problem(status: int, code: str, message: str, **extra) -> JSONResponse:
    return JSONResponse({"error": {"status": status, "code": code, "message": message, **extra}}, status_code=status)


def allowed_methods(app: FastAPI, scope) -> list[str]:
    """Every method some route serves at this path (several routes may share a path), HEAD with GET."""
    from starlette.routing import Match

    allowed = [m for m in ("GET", "POST", "PUT", "PATCH", "DELETE")
               if any(r.matches(dict(scope, method=m))[0] == Match.FULL for r in app.router.routes)]
    if "GET" in allowed:
        allowed.insert(1, "HEAD")  # app/api/middleware.py answers HEAD for every GET route
    return allowed


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_req: Request, exc: ApiError):
        return problem(exc.status, exc.code, exc.message, **exc.extra)

    @app.exception_handler(UnsupportedLanguage)
    async def _lang(_req: Request, exc: UnsupportedLanguage):
        return problem(422, "unsupported_language", str(exc), supported=["en", "zh"])

    @app.exception_handler(RequestValidationError)
    async def _validation(_req: Request, exc: RequestValidationError):
        details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()]
        msg = "; ".join(f"{'.'.join(map(str, d['loc']))}: {d['msg']}" for d in details) or "invalid request"
        return problem(422, "invalid_request", msg, details=details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(req: Request, exc: StarletteHTTPException):
        code = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large"}.get(exc.status_code, "http_error")
        resp = problem(exc.status_code, code, str(exc.detail))
        resp.headers.update(exc.headers or {})
        if exc.status_code == 405:
            resp.headers["Allow"] = ", ".join(allowed_methods(app, req.scope))
        return resp

    @app.exception_handler(ClientDisconnect)
    async def _gone(req: Request, _exc: ClientDisconnect):
        # the body stalled (app/api/middleware.py) or the client closed the connection mid-upload:
        # one line in the log, not a traceback
        log.info("request not completed (client gone or too slow): %s %s", req.method, req.url.path)
        resp = problem(408, "request_timeout", "the request body did not arrive in time")
        resp.headers["Connection"] = "close"
        return resp

    @app.exception_handler(Exception)
    async def _unexpected(_req: Request, exc: Exception):  # pragma: no cover - last resort
        log.exception("unhandled error")
        return problem(500, "internal_error", "internal error; the request was not processed")
