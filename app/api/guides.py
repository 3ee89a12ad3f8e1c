"""/guides: the playbooks (e.g. distributed hangs) as JSON, HTML or Markdown."""
from __future__ import annotations

from typing import Optional

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from faultline.api.deps import LangQuery, lang_headers, request_lang, snapshot, split_format, wants_html
from faultline.api.problems import ApiError
from faultline.web.pages import guide_page, guides_page
from faultline.render.markdown import guide_markdown
from faultline.render.view import guide_view
from faultline.schemas.common import errors
from faultline.schemas.entries import GuideList, GuideView

_HTML = {"text/html": {"schema": {"type": "string"}, "description": "the page, for browsers (Accept: text/html)"}}

router = APIRouter(tags=["guides"])


@router.get("/guides", summary="List guides", response_model=GuideList,
            responses={200: {"content": _HTML}, **errors(422)})
def guides_index(request: Request, lang: LangQuery = None):
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    if wants_html(request):
        return guides_page(request, snap, chosen)
    items = [{"id": g.id, "title": g.title.get(chosen), "summary": g.summary.get(chosen), "url": f"/guides/{g.id}"}
             for g in sorted(snap.guides.values(), key=lambda g: g.id)]
    return JSONResponse({"lang": chosen, "items": items}, headers=lang_headers(chosen))


@router.get("/guides/{guide_id}", summary="One guide (JSON, HTML, or .json / .md export)", response_model=GuideView,
            responses={200: {"content": {**_HTML, "text/markdown": {"schema": {"type": "string"},
                                                                      "description": "with the suffix .md"}}},
                       **errors(404, 422)})
def guide_detail(guide_id: str, request: Request, lang: LangQuery = None):
    chosen = request_lang(request, lang)
    snap = snapshot(request)
    guide_id, fmt = split_format(guide_id, snap.guides)
    guide = snap.guides.get(guide_id)
    if guide is None:
        raise ApiError(404, "not_found", f"no guide with id {guide_id!r}; see GET /guides")
    entries = snap.guide_entries.get(guide.id, [])
    headers = lang_headers(chosen)
    if fmt == "md":
        return Response(guide_markdown(guide, chosen, entries), media_type="text/markdown; charset=utf-8", headers=headers)
    if fmt is None and wants_html(request):
        return guide_page(request, snap, guide, chosen)
    return JSONResponse(guide_view(guide, chosen, entries), headers=headers)
