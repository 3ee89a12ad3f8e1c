"""POST /match: a traceback or log in, ranked known errors out."""
from __future__ import annotations

import asyncio
import json
import logging
import threading
from urllib.parse import parse_qsl
from typing import Annotated, Any, Optional, Union

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect
from pydantic import BaseModel, BeforeValidator, Field, ValidationError

from faultline.api import inbox, outcomes
from faultline.api.deps import LangQuery, lang_headers, request_lang, snapshot
from faultline.api.problems import ApiError
from faultline.api.responses import FastJSONResponse
from faultline.i18n.negotiate import explicit
from faultline.matching.decode import decode_paste
from faultline.render.match import match_text
from faultline.schemas.match import MatchResponse
from faultline.settings import MAX_BODY_BYTES, settings
from faultline.store.written import store_for_app

router = APIRouter(tags=["match"])
log = logging.getLogger("faultline")


def _json_int(v: Any) -> Any:
    """A JSON integer: 5 or 5.0 (JSON Schema counts both), never "5", true or 5.5."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError("must be an integer")
    if isinstance(v, float):
        if not v.is_integer():
            raise ValueError("must be an integer")
        return int(v)
    return v


JsonInt = Annotated[int, BeforeValidator(_json_int)]


class MatchRequest(BaseModel):
    text: str = Field(description="The traceback or log, as pasted (not blank)", pattern=r"\S")
    environment: Optional[Union[dict[str, str], str]] = Field(
        None, description="Versions: a dict like {'torch': '2.3.1'} or pasted pip freeze / collect_env / accelerate env text"
    )
    limit: JsonInt = Field(5, ge=1, le=50)
    lang: Optional[str] = Field(None, description="en or zh (regional tags such as zh-CN are accepted)",
                                json_schema_extra={"enum": ["en", "zh", None]})


_OPENAPI = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": MatchRequest.model_json_schema()},
            "text/plain": {"schema": {"type": "string", "pattern": "\\S", "minLength": 1,
                                             "description": "the raw log (not blank)"}},
            "multipart/form-data": {"schema": {
                "type": "object", "required": ["files"],
                "properties": {
                    "files": {"type": "array", "minItems": 1, "items": {"type": "string", "format": "binary"},
                              "description": "several logs of one job (per-rank files, error files) or a "
                                             ".zip / .tar.gz of its log folder; the answer names the file and "
                                             "line of each finding"},
                    "environment": {"type": "string"}, "lang": {"type": "string", "enum": ["en", "zh"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50}}}},
        },
    }
}


async def read_body(request: Request, limit: int = MAX_BODY_BYTES, limit_name: str | None = None) -> bytes:
    """The request body, refusing (413) anything over ``limit`` bytes without reading it all (the refusal
    names the setting ``limit_name`` when there is one)."""
    extra = {"limit": limit_name} if limit_name else {}
    declared = request.headers.get("content-length")
    mib = f"{limit / (1 << 20):g} MiB"
    if declared and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "payload_too_large", f"the body is {declared} bytes; the limit is {limit} bytes ({mib})",
                       **extra)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "payload_too_large", f"the body is larger than the limit of {limit} bytes ({mib})",
                           **extra)
        chunks.append(chunk)
    return b"".join(chunks)


def clean_text(value: str) -> str:
    """A string with lone surrogates (valid JSON escapes like \\ud800, not valid Unicode) replaced by U+FFFD."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _clean_json(data: Any) -> Any:
    if isinstance(data, str):
        return clean_text(data)
    if isinstance(data, dict):
        return {clean_text(k): _clean_json(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_clean_json(v) for v in data]
    return data


_TEXT_TYPES = {"", "text/plain", "text/x-log", "application/octet-stream"}


def _is_form(text: str) -> bool:
    """A urlencoded form with a 'text' field (not a raw log that curl labelled as a form)."""
    return text.startswith("text=") or "&text=" in text[:4096]


def parse_match_body(body: bytes, content_type: str) -> MatchRequest:
    text = body.decode("utf-8", errors="replace")
    if "json" in content_type:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ApiError(422, "invalid_json", f"the body is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
        except RecursionError:
            raise ApiError(422, "invalid_json", "the body is not acceptable JSON: it is nested too deeply")
        except ValueError as exc:  # e.g. an integer longer than Python's int-string limit
            raise ApiError(422, "invalid_json", f"the body is not acceptable JSON: {exc}")
        try:
            data = _clean_json(data)
        except RecursionError:
            raise ApiError(422, "invalid_json", "the body is not acceptable JSON: it is nested too deeply")
        if not isinstance(data, dict):
            raise ApiError(422, "invalid_request", 'the JSON body must be an object like {"text": "..."}')
        if isinstance(data.get("text"), str) and not data["text"].strip():
            raise ApiError(422, "empty_text", "the text to match is empty; paste a traceback or log")
        try:
            req = MatchRequest.model_validate(data)
        except ValidationError as exc:
            msg = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()) or "invalid request"
            raise ApiError(422, "invalid_request", msg)
    elif content_type.startswith("application/x-www-form-urlencoded") and _is_form(text):
        fields = dict(parse_qsl(text, keep_blank_values=True))
        if not fields.get("text", "").strip():
            raise ApiError(422, "empty_text", "the text to match is empty; paste a traceback or log")
        try:
            req = MatchRequest(text=fields.get("text", ""), environment=fields.get("environment") or None,
                               lang=fields.get("lang") or None,
                               limit=int(fields["limit"]) if fields.get("limit", "").isdigit() else 5)
        except ValidationError as exc:
            msg = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()) or "invalid request"
            raise ApiError(422, "invalid_request", msg)
    elif content_type.split(";")[0].strip() in _TEXT_TYPES or content_type.startswith("application/x-www-form-urlencoded"):
        # a raw log (curl --data-binary sends a file as x-www-form-urlencoded unless told otherwise)
        # UTF-8 or UTF-16 (with or without a BOM); invalid bytes are replaced, never surrogates
        raw = decode_paste(body).text
        if not raw.strip():
            raise ApiError(422, "empty_text", "the text to match is empty; paste a traceback or log")
        req = MatchRequest(text=raw)
    else:
        raise ApiError(415, "unsupported_media_type",
                       f"cannot match a {content_type.split(';')[0]} body; send application/json, text/plain "
                       "or a form with a 'text' field")
    return req


# A paste up to this many characters is matched on the event loop itself: its match takes a few
# milliseconds (hostile text of this size stays near 10 ms, see bench/adversarial.py), while a trip
# to a worker thread costs more than that under load (each hand-back of the GIL can wait for the
# interpreter's 5 ms switch interval).  Bigger pastes go to a worker thread, so that they cannot hold
# up other requests (/healthz among them), and stop early when their client goes away.
INLINE_CHARS = 32 * 1024


async def match_while_connected(request: Request, index, text: str, environment: Any, n: int, lang: str) -> dict:
    """Match under the CPU budget (FAULTLINE_MATCH_BUDGET_MS), then count the outcome reports of the
    entries found.  A small paste on an embedded (SQLite) database is done inline; otherwise in a worker
    thread, and when the client goes away meanwhile, the match is told to stop (it checks between lines)
    instead of finishing unseen work."""
    cancel = threading.Event()
    store = store_for_app(request.app)
    budget_ms = settings().match_budget_ms

    def work_fn() -> dict:  # one trip to a worker thread: the match, then the outcome reports of its entries
        result = match_text(index, text, environment, n, lang, budget_ms, cancel)
        ids = [m["id"] for m in result.get("matches", [])]
        result["_report_counts"] = store.counts_or_none(ids) if ids else {}  # None: the database is down
        if not ids:
            result["_inbox_group"] = inbox.group_for(result, text)  # scrubbing is bounded, and off the loop too
        return result

    if len(text) <= INLINE_CHARS and store.embedded:  # an SQLite read in WAL mode never waits for a writer
        return work_fn()
    log.info("matching a %d-character paste in a worker thread", len(text))
    return await in_thread_while_connected(request, work_fn, cancel, f"a {len(text)}-character paste")


async def in_thread_while_connected(request: Request, work_fn, cancel: threading.Event, what: str) -> Any:
    """``work_fn()`` in a worker thread; when the client goes away meanwhile, ``cancel`` is set (the
    match checks it between lines) and the request ends."""
    work = asyncio.ensure_future(run_in_threadpool(work_fn))
    try:
        while True:
            done, _ = await asyncio.wait({work}, timeout=0.05)
            if done:
                return work.result()
            if await request.is_disconnected():
                cancel.set()
                log.info("client went away: stopped the match of %s", what)
                raise ClientDisconnect()
    finally:
        cancel.set()  # also when this coroutine itself is cancelled


@router.post("/match", openapi_extra=_OPENAPI, response_model=MatchResponse,
             summary="Match a traceback or log against the knowledge base")
async def match(request: Request, lang: LangQuery = None,
                limit: Annotated[Optional[int], Query(ge=1, le=50, description="overrides the body's limit")] = None) -> Any:
    if request.headers.get("content-type", "").lower().startswith("multipart/form-data"):
        from faultline.api.upload import match_upload  # several files or an archive (app/logsets)

        return await match_upload(request, lang, limit)
    body = await read_body(request)
    req = parse_match_body(body, request.headers.get("content-type", "").lower())
    query_lang = request_lang(request, lang)  # validates ?lang= even when the body names a language
    chosen = explicit(req.lang) or query_lang
    n = req.limit if limit is None else limit
    if not 1 <= n <= 50:
        raise ApiError(422, "invalid_request", "limit must be between 1 and 50")
    snap = snapshot(request)
    result = await match_while_connected(request, snap.index, req.text, req.environment, n, chosen)
    result = await outcomes.with_evidence(request, result, chosen)  # rates from outcome reports
    await inbox.note_unknown(request, result, req.text)  # the inbox of unknown errors
    return FastJSONResponse(result, headers=lang_headers(chosen))
