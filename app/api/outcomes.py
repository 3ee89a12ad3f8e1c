"""POST /errors/{id}/outcomes: what happened when someone tried a fix (token required)."""
from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi import Path as PathParam
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError

from faultline.api.deps import snapshot
from faultline.api.problems import problem
from faultline.render.evidence import dead_end_rate, find_target, fix_rate, workaround_rate
from faultline.schemas.common import ErrorBody, errors
from faultline.schemas.outcomes import OutcomeIn, OutcomeOut
from faultline.store.written import RateLimited, ReportRow, TokenRow, iso, store_for_app

router = APIRouter(tags=["outcomes"])
BODY_LIMIT = 128 * 1024


def reports_per_minute() -> int:
    """Reports a token may send per minute (FAULTLINE_REPORTS_PER_MINUTE, default 30)."""
    from faultline.settings import settings

    return settings().reports_per_minute


class Refused(Exception):
    """A finished error response (with its headers), raised out of a helper."""

    def __init__(self, response: JSONResponse):
        self.response = response


def bearer(request: Request, scope: str) -> TokenRow:
    """The token of the request, which must carry ``scope``; Refused (401 / 403) otherwise."""
    auth = request.headers.get("authorization", "")
    kind, _, token = auth.partition(" ")
    challenge = {"WWW-Authenticate": f'Bearer scope="{scope}"'}
    if not auth:
        raise Refused(JSONResponse(_body(401, "unauthorized", "missing token: send 'Authorization: Bearer <token>' "
                                         f"with a '{scope}' token (`faultline token create --scope {scope}`)"),
                                   status_code=401, headers=challenge))
    if kind.lower() != "bearer" or not token.strip():
        raise Refused(JSONResponse(_body(401, "unauthorized", "the Authorization header must be 'Bearer <token>'"),
                                   status_code=401, headers=challenge))
    row = store_for_app(request.app).authenticate(token.strip())
    if row is None:
        raise Refused(JSONResponse(_body(401, "invalid_token", "the token is unknown or revoked"),
                                   status_code=401, headers={"WWW-Authenticate": 'Bearer error="invalid_token"'}))
    if row.scope != scope:
        raise Refused(JSONResponse(_body(403, "insufficient_scope",
                                         f"this token has scope '{row.scope}'; this needs scope '{scope}'"),
                                   status_code=403, headers={"WWW-Authenticate": 'Bearer error="insufficient_scope"'}))
    return row


def _body(status: int, code: str, message: str, **extra) -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message, **extra}}


def _parse(raw: bytes) -> OutcomeIn:
    from faultline.api.match import _clean_json

    try:
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise Refused(problem(422, "invalid_json", f"the body is not valid JSON: {exc.msg} at line {exc.lineno} "
                                                   f"column {exc.colno}"))
    except RecursionError:
        raise Refused(problem(422, "invalid_json", "the body is not acceptable JSON: it is nested too deeply"))
    except ValueError as exc:  # e.g. an integer longer than Python's int-string limit
        raise Refused(problem(422, "invalid_json", f"the body is not acceptable JSON: {exc}"))
    try:
        data = _clean_json(data)  # lone surrogates (valid JSON escapes, not storable text) become U+FFFD
    except RecursionError:
        raise Refused(problem(422, "invalid_json", "the body is not acceptable JSON: it is nested too deeply"))
    if not isinstance(data, dict):
        raise Refused(problem(422, "invalid_request", 'the JSON body must be an object like {"workaround": 1, "worked": true}'))
    try:
        return OutcomeIn.model_validate(data)
    except ValidationError as exc:
        details = [{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()]
        msg = "; ".join(f"{'.'.join(map(str, d['loc'])) or 'body'}: {d['msg']}" for d in details)
        raise Refused(problem(422, "invalid_request", msg, details=details))


async def _read(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > BODY_LIMIT:
        raise Refused(problem(413, "payload_too_large", f"the body is {declared} bytes; the limit is {BODY_LIMIT} bytes"))
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > BODY_LIMIT:
            raise Refused(problem(413, "payload_too_large", f"the body is larger than {BODY_LIMIT} bytes"))
        chunks.append(chunk)
    return b"".join(chunks)


def report_view(row: ReportRow, entry, lang: str, repeat: bool, counts) -> dict[str, Any]:
    kind = row.target_kind
    items = entry.workarounds if kind == "workaround" else entry.dead_ends
    target = items[row.target_index - 1] if 1 <= row.target_index <= len(items) else None
    if kind == "workaround":
        rate = workaround_rate(entry, target, counts) if target is not None else None
    else:
        rate = dead_end_rate(entry, target, counts) if target is not None else None
    out = OutcomeOut(
        id=row.id, entry=row.entry_id, target_id=row.target_key, worked=row.worked,
        environment=json.loads(row.environment) if row.environment else None, note=row.note,
        created=iso(row.created), repeat=repeat, retried=row.retried, retry_worked=row.retry_worked,
        rate=rate.as_dict(lang) if rate else None, fix_rate=fix_rate(entry, counts).as_dict(lang),
        **{kind: row.target_index},
    )
    return out.model_dump(exclude_none=True)


@router.post("/errors/{domain}/{slug}/outcomes", status_code=201, response_model=OutcomeOut,
             summary="Report whether a workaround (or dead end) worked; needs a 'report' token",
             responses={200: {"model": OutcomeOut, "description": "the same token reported this within 24 h: "
                                                                  "the earlier report, counted once"},
                        503: {"model": ErrorBody, "description": "the database is unavailable; nothing was stored"},
                        **errors(401, 403, 404, 413, 422, 429)},
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/json": {"schema": OutcomeIn.model_json_schema()}}}})
async def post_outcome(request: Request, domain: str = PathParam(examples=["pytorch"]),
                       slug: str = PathParam(examples=["nccl-timeout-allreduce"])):
    entry_id = f"{domain}/{slug}"
    try:
        token = await run_in_threadpool(bearer, request, "report")
        body = _parse(await _read(request))
        entry = snapshot(request).entries.get(entry_id)
        if entry is None:
            return problem(404, "not_found", f"no entry with id {entry_id!r}; see GET /errors for the list")
        kind = "workaround" if body.workaround is not None else "dead_end"
        ref = body.workaround if kind == "workaround" else body.dead_end
        found = find_target(entry, kind, ref)
        if found is None:
            n = len(entry.workarounds if kind == "workaround" else entry.dead_ends)
            what = "workaround" if kind == "workaround" else "dead end"
            return problem(404, "not_found", f"{entry_id} has no {what} {ref!r}: give a 1-based index from 1 to {n} "
                                             f"or an id as shown in GET /errors/{entry_id}")
        index, key = found
        store = store_for_app(request.app)
        try:
            row, created = await run_in_threadpool(
                store.add_report, token.id, entry.id, kind, key, index, body.worked, body.environment, body.note,
                reports_per_minute(), body.retried, body.retry_worked)
        except RateLimited as exc:
            return JSONResponse(_body(429, "rate_limited", f"more than {reports_per_minute()} reports a minute from "
                                      f"this token; retry after {exc.retry_after} s", retry_after=exc.retry_after),
                                status_code=429, headers={"Retry-After": str(exc.retry_after)})
        counts = await run_in_threadpool(store.counts_for, entry.id)
        lang = "zh" if request.query_params.get("lang") == "zh" else "en"
        return JSONResponse(report_view(row, entry, lang, not created, counts), status_code=201 if created else 200,
                            headers={"Location": f"/errors/{entry.id}"})
    except Refused as r:
        return r.response
    except DBAPIError:
        return JSONResponse(_body(503, "database_unavailable", "the database is busy or unavailable; "
                                  "the report was NOT stored, send it again"), status_code=503,
                            headers={"Retry-After": "5"})


async def with_evidence(request: Request, result: dict[str, Any], lang: str) -> dict[str, Any]:
    """A /match result with every rate updated by the outcome reports (labelled estimated or from N reports)."""
    from faultline.render.evidence import annotate_match

    ids = [m["id"] for m in result.get("matches", [])]
    if "_report_counts" in result:
        counts = result.pop("_report_counts")  # read in the match's own worker thread (app/api/match.py)
    else:
        counts = await run_in_threadpool(store_for_app(request.app).counts_or_none, ids) if ids else {}
    if counts is None:  # the database is unavailable: the curated estimates, and the answer says so
        result["evidence_unavailable"] = True
        counts = {}
    return annotate_match(result, snapshot(request).entries.get, counts, lang)
