"""Shapes every route shares: the error body, the health answer, the language parameter."""
from __future__ import annotations

from enum import Enum
from typing import Any, Optional

from pydantic import BaseModel, Field


class Lang(str, Enum):
    """The languages Faultline answers in (regional tags such as zh-CN or en-US are accepted too)."""

    en = "en"
    zh = "zh"


class ErrorDetail(BaseModel):
    status: int
    code: str = Field(description="a stable code, e.g. not_found, invalid_request, unsupported_language, "
                                  "payload_too_large, unsupported_media_type, method_not_allowed, request_timeout")
    message: str = Field(description="one sentence saying what was wrong")
    supported: Optional[list[str]] = None
    details: Optional[list[dict[str, Any]]] = None


class ErrorBody(BaseModel):
    """Every error answer: {"error": {"status", "code", "message", ...}}."""

    error: ErrorDetail


class Health(BaseModel):
    status: str = Field(description="ok; degraded when no entries are served or the database is unavailable "
                                    "(matches are then answered from memory, without outcome-report counts)")
    entries: int
    guides: int
    generation: Optional[str] = None
    loaded_at: Optional[str] = None
    ready: bool = Field(True, description="false while the database is unavailable or no entries are served")
    database: str = Field("ok", description="ok, or unavailable (the last use of the database failed)")
    stale: bool = Field(False, description="true when the database holds a newer generation that could not be loaded")
    db_generation: Optional[str] = Field(None, description="the newest generation the database holds, when known")


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, all with the documented error body."""
    what = {400: "Bad request", 404: "Not found", 405: "Method not allowed (the Allow header lists the methods)",
            408: "The request body did not arrive in time", 413: "The body is larger than 1 MiB",
            415: "Unsupported content type", 422: "Invalid request (a parameter, the body, or an unsupported language)",
            429: "Too many requests (see Retry-After)", 401: "Missing or bad token", 403: "The token may not do this"}
    return {s: {"model": ErrorBody, "description": what.get(s, "Error")} for s in statuses}
