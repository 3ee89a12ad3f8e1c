"""Shared request helpers: the KB snapshot and the negotiated language."""
from __future__ import annotations

from fastapi import Request

from app.i18n.negotiate import negotiate
from app.service import Snapshot


def snapshot(request: Request) -> Snapshot:
    return request.app.state.kb.current()


def request_lang(request: Request, lang: str | None = None) -> str:
    return negotiate(lang, request.headers.get("accept-language"), request.cookies.get("lang"))


def wants_html(request: Request) -> bool:
    """True when the client prefers text/html over JSON (a browser)."""
    accept = request.headers.get("accept", "")
    best_html = best_json = -1.0
    for part in accept.split(","):
        bits = part.strip().split(";")
        mt = bits[0].strip().lower()
        q = 1.0
        for b in bits[1:]:
            b = b.strip()
            if b.startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        if mt in ("text/html", "application/xhtml+xml"):
            best_html = max(best_html, q)
        elif mt in ("application/json", "*/*", "application/*"):
            best_json = max(best_json, q if mt == "application/json" else q - 0.01)
    return best_html > 0 and best_html >= best_json


def lang_headers(lang: str) -> dict[str, str]:
    return {"Content-Language": lang, "Vary": "Accept, Accept-Language, Cookie"}
