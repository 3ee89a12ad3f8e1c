"""POST /match with ``multipart/form-data``: several logs of one job (or an archive of its log folder)
in, one answer out that names the file and line of each finding (app/logsets).

Limits (app/settings.py, FAULTLINE_LOGSET_*) are checked as the body arrives and before each archive
member is read; a refusal is a 413 (which limit) or a 422 (an unsafe or unreadable archive).  Uploads
stay in memory; nothing is written to disk.  The CPU budget (FAULTLINE_MATCH_BUDGET_MS) covers the
whole request: reading, the match and the analysis across files.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from faultline.api import outcomes
from faultline.api.deps import lang_headers, request_lang, snapshot
from faultline.api.match import in_thread_while_connected, read_body
from faultline.api.problems import ApiError
from faultline.api.responses import FastJSONResponse
from faultline.i18n.negotiate import explicit
from faultline.logsets import Limits, LogSetError, match_files, read_uploads
from faultline.logsets.inputs import LIMIT_VARS
from faultline.settings import settings

MULTIPART_OVERHEAD = 1 << 20  # part headers and boundaries, on top of the files' own bytes
FIELD_BYTES = 1 << 20  # a form field that is not a file (the environment, a pasted text)


def in_memory_parser(limit: int) -> type[MultiPartParser]:
    class InMemory(MultiPartParser):  # files up to the body limit stay in memory: never spooled to disk
        spool_max_size = limit + MULTIPART_OVERHEAD
    return InMemory


async def _form(request: Request, body: bytes, lim: Limits):
    async def stream():
        yield body

    parser = in_memory_parser(len(body))(request.headers, stream(), max_files=lim.max_files, max_fields=20,
                                   max_part_size=FIELD_BYTES)
    try:
        return await parser.parse()
    except MultiPartException as exc:
        msg = str(exc.message if hasattr(exc, "message") else exc)
        if "Too many files" in msg:
            raise ApiError(413, "limit_exceeded", f"{msg} (the limit max_files; set {LIMIT_VARS['max_files']} to "
                           "change it)", limit="max_files")
        raise ApiError(422, "invalid_multipart", f"the multipart body cannot be read: {msg}")


async def match_upload(request: Request, lang: Any, limit: int | None) -> JSONResponse:
    lim = Limits.from_settings()
    t0 = time.thread_time()
    body = await read_body(request, lim.max_total_bytes + MULTIPART_OVERHEAD, limit_name="max_total_bytes")
    form = await _form(request, body, lim)
    items: list[tuple[str, bytes]] = []
    fields: dict[str, str] = {}
    for key, value in form.multi_items():
        if isinstance(value, UploadFile):
            data = await value.read()
            if value.filename or data:
                items.append((value.filename or key, data))
        elif key == "text" and value.strip():
            items.append(("pasted text", value.encode("utf-8")))
        elif key not in ("environment", "lang", "limit"):
            continue  # a field the form does not declare is ignored, as the schema allows
        elif key in fields:
            await form.close()
            raise ApiError(422, "invalid_request", f"the form field '{key}' is given more than once; give it once")
        else:
            fields[key] = value
    await form.close()
    if not items:
        raise ApiError(422, "empty_text", "the form holds no file; send one or more files in the field 'files'")
    try:
        collected = read_uploads(items, lim)
    except LogSetError as exc:
        raise ApiError(exc.status, exc.code, exc.message, **({"limit": exc.limit} if exc.limit else {}))
    query_lang = request_lang(request, lang)
    if fields.get("lang") and fields["lang"] not in ("en", "zh"):
        raise ApiError(422, "invalid_request", "lang: must be en or zh")
    chosen = explicit(fields.get("lang") or None) or query_lang
    raw = fields.get("limit", "").strip()
    if raw and not (raw.isdigit() and 1 <= int(raw) <= 50):
        raise ApiError(422, "invalid_request", "limit must be a whole number between 1 and 50")
    n = limit if limit is not None else (int(raw) if raw else 5)
    snap = snapshot(request)
    cancel = threading.Event()
    budget_ms = settings().match_budget_ms
    spent_ms = (time.thread_time() - t0) * 1000

    def work_fn() -> dict:
        try:
            res = match_files(snap.index, collected, fields.get("environment") or None, n, chosen,
                              budget_ms, cancel, spent_ms)
        except LogSetError as exc:
            raise ApiError(exc.status, exc.code, exc.message)
        return res

    result = await in_thread_while_connected(request, work_fn, cancel, f"{len(collected.files)} files")
    result = await outcomes.with_evidence(request, result, chosen)
    return FastJSONResponse(result, headers=lang_headers(chosen))
