"""/healthz and /export (the whole knowledge base)."""
from __future__ import annotations

from typing import Literal, Optional

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from app.api.deps import lang_headers, request_lang, snapshot
from app.render.export import export_json, export_markdown
from app.store.written import store_for_app

router = APIRouter(tags=["system"])


@router.get("/healthz", summary="Liveness and what is loaded")
def healthz(request: Request):
    snap = snapshot(request)
    return {"status": "ok" if len(snap.entries) else "degraded", "entries": len(snap.entries), "guides": len(snap.guides),
            "generation": snap.generation, "loaded_at": snap.loaded_at}


@router.get("/export", summary="Export the whole knowledge base")
def export(request: Request, format: Literal["json", "md"] = "json", lang: Optional[str] = None):
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    entries = sorted(snap.entries.values(), key=lambda e: e.id)
    counts = store_for_app(request.app).counts()  # outcome reports: rates become posteriors
    guides = sorted(snap.guides.values(), key=lambda g: g.id)
    headers = lang_headers(chosen)
    if format == "md":
        return Response(export_markdown(entries, guides, chosen, counts), media_type="text/markdown; charset=utf-8", headers=headers)
    return JSONResponse(export_json(entries, guides, chosen, counts), headers=headers)
