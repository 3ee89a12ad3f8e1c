"""Shared request helpers: the KB snapshot and the negotiated language."""
from __future__ import annotations

from typing import Annotated, Optional

from fastapi import Query, Request

from faultline.i18n.negotiate import lang_headers, negotiate, quality_list  # noqa: F401 - lang_headers re-exported
from faultline.service import Snapshot


def snapshot(request: Request) -> Snapshot:
    return request.app.state.kb.current()


def request_lang(request: Request, lang: str | None = None) -> str:
    return negotiate(lang, request.headers.get("accept-language"), request.cookies.get("lang"))


def wants_html(request: Request) -> bool:
    """True when the client prefers text/html over JSON (a browser)."""
    best_html = best_json = -1.0
    for mt, q in quality_list(request.headers.get("accept")):
        mt = mt.lower()
        if mt in ("text/html", "application/xhtml+xml"):
            best_html = max(best_html, q)
        elif mt in ("application/json", "*/*", "application/*"):
            best_json = max(best_json, q if mt == "application/json" else q - 0.01)
    return best_html > 0 and best_html >= best_json


def split_format(ident: str, known) -> tuple[str, str | None]:
    """'a/b.md' -> ('a/b', 'md') when 'a/b' is a known id; otherwise (ident, None)."""
    for suffix in (".json", ".md"):
        if ident.endswith(suffix) and ident[: -len(suffix)] in known:
            return ident[: -len(suffix)], suffix[1:]
    return ident, None




# ?lang= on every route: en or zh (regional tags such as zh-CN are accepted and mapped); anything else
# gets 422 unsupported_language, the same answer everywhere
LangQuery = Annotated[Optional[str], Query(
    description="answer language: en or zh (default: the lang cookie, then Accept-Language, then en)",
    json_schema_extra={"enum": ["en", "zh"]})]
