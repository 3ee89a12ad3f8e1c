"""The OpenAPI document, completed: every error status a route can answer, with the real error body."""
from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from faultline.schemas.common import ErrorBody

_WHAT = {401: "Missing or bad token (Authorization: Bearer <token>)", 403: "The token's scope does not allow this",
         404: "No such entry or workaround", 429: "Too many requests from this token (see Retry-After)", 408: "The request body did not arrive in time", 413: "The body is larger than 1 MiB",
         415: "Unsupported content type", 422: "Invalid request (a parameter, the body, or an unsupported language)"}
# statuses a route answers beyond those its decorator lists (raised by shared code)
_EXTRA = {("/match", "post"): (408, 413, 415, 422),
          ("/errors/{domain}/{slug}/outcomes", "post"): (401, 403, 404, 408, 413, 422, 429),
          ("/inbox", "get"): (401, 403, 422)}


def install(app: FastAPI) -> None:
    def openapi() -> dict:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        schemas.update({k: v for k, v in ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
                       .pop("$defs", {}).items()})
        schemas["ErrorBody"] = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas["ErrorBody"].pop("$defs", None)
        error_ref = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
        for path, ops in doc.get("paths", {}).items():
            for method, op in ops.items():
                responses = op.setdefault("responses", {})
                for status in _EXTRA.get((path, method), ()):
                    responses.setdefault(str(status), {"description": _WHAT[status]})
                for status, resp in responses.items():
                    if status.startswith(("4", "5")):
                        resp["content"] = error_ref  # FastAPI's default 422 shape is not what we send
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]
