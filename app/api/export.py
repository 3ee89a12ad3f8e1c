"""GET /export: the whole knowledge base as one JSON document or one Markdown file.

The rendered document is kept (per snapshot, language, format and state of the outcome reports,
the last few): at thousands of entries one render costs seconds and megabytes, and many requests at
once render it once, not once each.  While the database is unavailable the export carries the
curated estimates and says so (``evidence_unavailable``; a header for Markdown).
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response

from faultline.api.deps import LangQuery, lang_headers, request_lang, snapshot
from faultline.render.export import export_json, export_markdown
from faultline.schemas.common import errors
from faultline.store.written import store_for_app

router = APIRouter(tags=["system"])
_CACHE: OrderedDict[tuple, bytes] = OrderedDict()
_CACHE_MAX = 4
_RENDER = threading.Lock()


def _stamp(counts) -> int | None:
    if counts is None:
        return None
    return hash(tuple((eid, c.fixed, c.not_fixed, tuple(sorted((k, tuple(v)) for k, v in c.targets.items())))
                      for eid, c in sorted(counts.items())))


def _render(snap, chosen: str, format: str, counts) -> bytes:
    entries = [snap.entries[i] for i in snap.entries]  # sorted by id
    guides = sorted(snap.guides.values(), key=lambda g: g.id)
    if format == "md":
        return export_markdown(entries, guides, chosen, counts).encode("utf-8")
    doc = export_json(entries, guides, chosen, counts)
    if counts is None:
        doc["evidence_unavailable"] = True
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


@router.get("/export", summary="Export the whole knowledge base", response_model=dict[str, Any],
            responses={200: {"content": {"text/markdown": {"schema": {"type": "string"},
                                                           "description": "with format=md"}}},
                       **errors(422)})
def export(request: Request, format: Literal["json", "md"] = "json", lang: LangQuery = None):
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    counts = store_for_app(request.app).counts_or_none()  # outcome reports: rates become posteriors
    headers = lang_headers(chosen)
    if counts is None:
        headers = {**headers, "X-Faultline-Evidence": "unavailable"}
    key = (id(snap), snap.generation, chosen, format, _stamp(counts))
    with _RENDER:  # one render at a time; the others wait for it and reuse it
        body = _CACHE.get(key)
        if body is None:
            body = _render(snap, chosen, format, counts)
            _CACHE[key] = body
            while len(_CACHE) > _CACHE_MAX:
                _CACHE.popitem(last=False)
        else:
            _CACHE.move_to_end(key)
    media = "text/markdown; charset=utf-8" if format == "md" else "application/json"
    return Response(body, media_type=media, headers=headers)
