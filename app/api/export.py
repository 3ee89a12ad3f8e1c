"""GET /export: the whole knowledge base as one JSON document or one Markdown file."""
from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.api.deps import LangQuery, lang_headers, request_lang, snapshot
from app.render.export import export_json, export_markdown
from app.schemas.common import errors
from app.store.written import store_for_app

router = APIRouter(tags=["system"])


@router.get("/export", summary="Export the whole knowledge base", response_model=dict[str, Any],
            responses={200: {"content": {"text/markdown": {"schema": {"type": "string"},
                                                           "description": "with format=md"}}},
                       **errors(422)})
def export(request: Request, format: Literal["json", "md"] = "json", lang: LangQuery = None):
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    entries = [snap.entries[i] for i in snap.entries]  # sorted by id
    counts = store_for_app(request.app).counts()  # outcome reports: rates become posteriors
    guides = sorted(snap.guides.values(), key=lambda g: g.id)
    headers = lang_headers(chosen)
    if format == "md":
        return Response(export_markdown(entries, guides, chosen, counts), media_type="text/markdown; charset=utf-8",
                        headers=headers)
    return JSONResponse(export_json(entries, guides, chosen, counts), headers=headers)
