"""/errors: list and search entries; one entry as JSON, HTML, JSON export or Markdown."""
from __future__ import annotations

from typing import Optional

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from faultline.api.deps import LangQuery, lang_headers, request_lang, snapshot, split_format, wants_html
from faultline.api.problems import ApiError
from faultline.web.pages import browse_page, entry_page
from faultline.render.markdown import entry_markdown
from faultline.schemas.common import errors
from faultline.schemas.entries import EntryList, EntryView
from faultline.render.view import entry_view
from faultline.render.evidence import fix_fields
from faultline.store.written import Counts, store_for_app

router = APIRouter(tags=["errors"])


def list_entries(snap, q: str | None, tag: str | None, domain: str | None) -> list[str]:
    """Ids of the entries matching the filters, best first (text search over en and zh)."""
    return snap.entries.search(q, tag, domain)


_HTML = {"text/html": {"schema": {"type": "string"}, "description": "the page, for browsers (Accept: text/html)"}}


@router.get("/errors", summary="List and search entries", response_model=EntryList,
            responses={200: {"content": _HTML}, **errors(422)})
def errors_index(request: Request, q: Optional[str] = Query(None, max_length=500), tag: Optional[str] = None,
                 domain: Optional[str] = None, page: int = Query(1, ge=1, le=100000),
                 per_page: int = Query(20, ge=1, le=200), lang: LangQuery = None):
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    ids = list_entries(snap, q, tag, domain)
    if wants_html(request):
        return browse_page(request, snap, chosen, ids, q=q, tag=tag, domain=domain, page=page, per_page=per_page)
    start = (page - 1) * per_page
    shown = [snap.entries.summary(i) for i in ids[start:start + per_page]]
    counts = store_for_app(request.app).counts_or_none([s.id for s in shown])  # outcome reports
    unavailable = counts is None  # the database is down: the curated estimates, and the answer says so
    counts = counts or {}
    body = {
        "lang": chosen,
        "total": len(ids),
        "page": page,
        "per_page": per_page,
        "items": [
            {"id": s.id, "title": s.title(chosen), "domain": s.domain, "category": s.category, "tags": list(s.tags),
             **fix_fields(s.fix_rate, counts.get(s.id), chosen), "url": f"/errors/{s.id}"}
            for s in shown
        ],
    }
    if unavailable:
        body["evidence_unavailable"] = True
    return JSONResponse(body, headers=lang_headers(chosen))


@router.get("/errors/{domain}/{slug}", summary="One entry (JSON, HTML, or .json / .md export)",
            response_model=EntryView,
            responses={200: {"content": {**_HTML, "text/markdown": {"schema": {"type": "string"},
                                                                      "description": "with the suffix .md"}}},
                       **errors(404, 422)})
def error_detail(domain: str, slug: str, request: Request, lang: LangQuery = None):
    """An entry's id is `domain/slug` (e.g. pytorch/cuda-out-of-memory); add .json or .md for an export."""
    entry_id = f"{domain}/{slug}"
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    entry_id, fmt = split_format(entry_id, snap.entries)
    entry = snap.entries.get(entry_id)
    if entry is None:
        raise ApiError(404, "not_found", f"no entry with id {entry_id!r}; see GET /errors for the list")
    headers = lang_headers(chosen)
    got = store_for_app(request.app).counts_or_none([entry.id])  # outcome reports: rates become posteriors
    counts = got.get(entry.id, Counts()) if got is not None else None  # None: the database is down
    if fmt == "md":
        return Response(entry_markdown(entry, chosen, counts), media_type="text/markdown; charset=utf-8", headers=headers)
    if wants_html(request) and fmt != "json":
        return entry_page(request, snap, entry, chosen, counts)
    view = entry_view(entry, chosen, counts)
    if got is None:
        view["evidence_unavailable"] = True
    return JSONResponse(view, headers=headers)
