"""Server-rendered HTML pages (Jinja2 + gettext), in English and Simplified Chinese.

The API routers call entry_page / browse_page / guides_page / guide_page when the client
prefers text/html; app/api/pages.py adds the home page, the results of a pasted log, the
language switch and the static files.  No page needs JavaScript.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import quote, urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.datastructures import URL

from faultline.entry import Entry, Guide
from faultline.i18n.negotiate import SUPPORTED, UnsupportedLanguage, explicit, lang_headers
from faultline.i18n.translations import (
    HTML_LANG,
    NATIVE_NAME,
    format_date,
    format_number,
    format_percent,
    translations,
)
from faultline.render.evidence import fix_fields
from faultline.render.view import entry_view, guide_view
from faultline.store.written import store_for_app
from faultline.service import Snapshot
from faultline.settings import settings

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_PER_PAGE = 20

# No scripts, no external assets: everything comes from this origin.  Inline style attributes
# are allowed for the width of the rate bars only.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


# ----------------------------------------------------------------------------- Jinja2


_INLINE_CODE = re.compile(r"`([^`\n]+)`")
_INLINE_EM = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
# YAML folded scalars (">-") join lines with a space, which Chinese text must not have.
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_CJK_SPACE = re.compile(rf"(?<=[{_CJK}])[ \t\n]+(?=[{_CJK}])")


def inline_markup(text: str | None) -> Markup:
    """Escape ``text``; then `code` and *emphasis* (the little Markdown the KB texts use).

    Spaces between two Chinese characters (left by folded YAML lines) are dropped."""
    if not text:
        return Markup("")
    out = str(escape(_CJK_SPACE.sub("", text)))
    out = _INLINE_CODE.sub(r"<code>\1</code>", out)
    out = _INLINE_EM.sub(r"<em>\1</em>", out)
    return Markup(out)


def paragraphs(text: str | None, cls: str | None = None) -> Markup:
    """One <p> per paragraph (a line break in a folded YAML text starts a new paragraph)."""
    if not text:
        return Markup("")
    attr = Markup(' class="%s"') % cls if cls else Markup("")
    parts = [p for p in re.split(r"\n\s*", text.strip()) if p]
    return Markup("\n").join(Markup("<p%s>%s</p>") % (attr, inline_markup(p)) for p in parts)


@lru_cache(maxsize=None)
def environment(lang: str) -> Environment:
    """One Jinja2 environment per language, with that language's gettext catalog installed."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(["html"], default_for_string=True),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.policies["ext.i18n.trimmed"] = True  # as babel.cfg extracts them
    env.install_gettext_translations(translations(lang), newstyle=True)
    env.filters["pct"] = lambda x: format_percent(x, lang)
    env.filters["date"] = lambda d, fmt="long": format_date(d, lang, fmt)
    env.filters["num"] = lambda x: format_number(x, lang)
    env.filters["inline"] = inline_markup
    env.filters["paragraphs"] = paragraphs
    env.filters["width"] = lambda x: f"{max(0.0, min(1.0, float(x or 0))) * 100:.0f}%"
    return env


# ----------------------------------------------------------------------------- helpers


def other_lang(lang: str) -> str:
    return next((x for x in SUPPORTED if x != lang), lang)


def _explicit_lang(request: Request) -> str | None:
    """The language asked for with ?lang= (valid values only)."""
    try:
        return explicit(request.query_params.get("lang"))
    except UnsupportedLanguage:
        return None


def _here(request: Request) -> str:
    """This page's path and query, without ?lang=."""
    url = request.url.remove_query_params("lang")
    return url.path + (f"?{url.query}" if url.query else "")


def is_local_path(target: str | None) -> bool:
    """True for '/something' on this site (no scheme, no host, no '//' or '/\\' tricks)."""
    if not target or not target.startswith("/") or len(target) > 2000:
        return False
    if target.startswith("//") or target.startswith("/\\"):
        return False
    if any(ord(c) < 0x20 or c == "\x7f" or c == "\\" for c in target):
        return False
    return True


def strip_lang(target: str) -> str:
    url = URL(target).remove_query_params("lang")
    return url.path + (f"?{url.query}" if url.query else "")


def _absolute(request: Request, path_and_query: str, lang: str | None) -> str:
    url = URL(path_and_query)
    if lang is not None:
        url = url.include_query_params(lang=lang)
    # an absolute link only from the configured public address: the Host header is the client's to set
    base = settings().public_url or ""
    return base + url.path + (f"?{url.query}" if url.query else "")


def _common(request: Request, lang: str, here: str | None) -> dict[str, Any]:
    sticky = _explicit_lang(request)  # keep an explicit ?lang= on the links of the page
    here = here if here is not None else _here(request)

    def link(path: str, **params: Any) -> str:
        q = [(k, v) for k, v in params.items() if v is not None and v != ""]
        if sticky and "lang" not in params:
            q.append(("lang", lang))
        return path + (f"?{urlencode(q)}" if q else "")

    alternates = [{"hreflang": HTML_LANG[x], "href": _absolute(request, here, x)} for x in SUPPORTED]
    alternates.append({"hreflang": "x-default", "href": _absolute(request, here, None)})
    switch = [
        {"code": x, "name": NATIVE_NAME[x], "html_lang": HTML_LANG[x], "current": x == lang,
         "url": f"/lang/{x}?next={quote(here, safe='/')}"}
        for x in SUPPORTED
    ]
    return {
        "lang": lang,
        "html_lang": HTML_LANG[lang],
        "other_lang": other_lang(lang),
        "other_lang_name": NATIVE_NAME[other_lang(lang)],
        "other_html_lang": HTML_LANG[other_lang(lang)],
        "sticky_lang": sticky,
        "link": link,
        "alternates": alternates,
        "lang_switch": switch,
        "path": request.url.path,
    }


def render(request: Request, lang: str, template: str, status: int = 200, here: str | None = None,
           headers: dict[str, str] | None = None, **ctx: Any) -> HTMLResponse:
    """Render ``template`` in ``lang``: an HTMLResponse with Content-Language and Vary headers."""
    page = environment(lang).get_template(template).render(**_common(request, lang, here), **ctx)
    h = lang_headers(lang)
    h.update(SECURITY_HEADERS)
    if headers:
        h.update(headers)
    return HTMLResponse(page, status_code=status, headers=h)


def _entry_ref(snap: Snapshot, eid: str, lang: str) -> dict[str, Any]:
    e = snap.entries.get(eid)
    return {"id": eid, "title": e.title.get(lang) if e else None, "exists": e is not None}


def _guide_ref(snap: Snapshot, gid: str, lang: str) -> dict[str, Any]:
    g = snap.guides.get(gid)
    return {"id": gid, "title": g.title.get(lang) if g else None, "exists": g is not None}


def kb_counts(snap: Snapshot) -> dict[str, int]:
    return {"entries": len(snap.entries), "guides": len(snap.guides)}


# ----------------------------------------------------------------------------- pages


def entry_page(request: Request, snap: Snapshot, entry: Entry, lang: str, counts=None) -> HTMLResponse:
    v = entry_view(entry, lang, counts)
    return render(
        request, lang, "entry.html",
        e=v,
        related=[_entry_ref(snap, r, lang) for r in entry.related],
        guides=[_guide_ref(snap, g, lang) for g in entry.guides],
        json_url=f"/errors/{entry.id}.json?lang={lang}",
        md_url=f"/errors/{entry.id}.md?lang={lang}",
        other_url=f"/errors/{entry.id}?lang={other_lang(lang)}",
    )


def _page_numbers(page: int, pages: int, around: int = 2) -> list[int | None]:
    """1 … 4 5 [6] 7 8 … 20  (None marks a gap)."""
    keep = {1, pages} | set(range(max(1, page - around), min(pages, page + around) + 1))
    out: list[int | None] = []
    prev = 0
    for n in sorted(keep):
        if n - prev > 1:
            out.append(None)
        out.append(n)
        prev = n
    return out


def browse_page(request: Request, snap: Snapshot, lang: str, ids: list[str], q: str | None = None,
                tag: str | None = None, domain: str | None = None, page: int = 1,
                per_page: int = DEFAULT_PER_PAGE) -> HTMLResponse:
    total = len(ids)
    pages = max(1, math.ceil(total / per_page))
    start = (page - 1) * per_page
    shown = [snap.entries.summary(i) for i in ids[start:start + per_page]]
    domain_facets, tag_facets = snap.entries.facets()
    pp = per_page if per_page != DEFAULT_PER_PAGE else None
    common = {"q": q or None, "tag": tag or None, "domain": domain or None, "per_page": pp}

    link = _common(request, lang, None)["link"]

    def page_url(n: int) -> str:
        return link("/errors", **common, page=n if n > 1 else None)

    return render(
        request, lang, "browse.html",
        items=[
            {"id": e.id, "title": e.title(lang), "domain": e.domain, "category": e.category,
             "tags": list(e.tags), **fix_fields(e.fix_rate, rep.get(e.id), lang), "role": e.role, "code": e.code}
            for rep in [store_for_app(request.app).counts_or_none([x.id for x in shown]) or {}] for e in shown
        ],
        total=total, page=page, pages=pages, per_page=per_page, first=start + 1, last=start + len(shown),
        q=q or "", tag=tag or "", domain=domain or "",
        domains=domain_facets,
        tags=tag_facets,
        page_numbers=[(n, page_url(n) if n else None) for n in _page_numbers(min(page, pages), pages)],
        prev_url=page_url(page - 1) if 1 < page <= pages + 1 else None,
        next_url=page_url(page + 1) if page < pages else None,
        filtered=bool(q or tag or domain),
        json_url="/errors?" + urlencode([(k, v) for k, v in {**common, "page": page if page > 1 else None,
                                                                  "lang": lang}.items() if v]),
        counts=kb_counts(snap),
    )


def guides_page(request: Request, snap: Snapshot, lang: str) -> HTMLResponse:
    items = [
        {"id": g.id, "title": g.title.get(lang), "summary": g.summary.get(lang),
         "sections": [s.title.get(lang) for s in g.sections], "entries": len(snap.guide_entries.get(g.id, []))}
        for g in sorted(snap.guides.values(), key=lambda g: g.id)
    ]
    return render(request, lang, "guides.html", items=items, json_url=f"/guides?lang={lang}")


def guide_page(request: Request, snap: Snapshot, guide: Guide, lang: str) -> HTMLResponse:
    entries = sorted(snap.guide_entries.get(guide.id, []))
    return render(
        request, lang, "guide.html",
        g=guide_view(guide, lang, entries),
        entries=[_entry_ref(snap, eid, lang) for eid in entries],
        json_url=f"/guides/{guide.id}.json?lang={lang}",
        md_url=f"/guides/{guide.id}.md?lang={lang}",
        other_url=f"/guides/{guide.id}?lang={other_lang(lang)}",
    )


def home_page(request: Request, snap: Snapshot, lang: str, text: str = "", environment_text: str = "",
              error: str | None = None, status: int = 200) -> HTMLResponse:
    return render(request, lang, "home.html", status=status, here="/", text=text, environment_text=environment_text,
                  error=error, counts=kb_counts(snap),
                  guides=[{"id": g.id, "title": g.title.get(lang)} for g in sorted(snap.guides.values(), key=lambda g: g.id)])


def results_page(request: Request, snap: Snapshot, lang: str, result: dict[str, Any], text: str,
                 environment_text: str = "", kept: dict[str, Any] | None = None) -> HTMLResponse:
    """``kept``: the result's link (``url``, ``expires``, ``days``) when it is kept; the language switch then
    comes back to it."""
    # the result was rendered in ``lang`` (app/render/match.py): each reason carries its text
    matches = [dict(m, why=[w["text"] for w in m["why"]]) for m in result["matches"]]
    related = result.get("related", [])
    if kept is not None:
        import datetime as dt

        kept = dict(kept, until=format_date(dt.datetime.fromtimestamp(kept["expires"], dt.timezone.utc).date(), lang))
    return render(request, lang, "results.html", here=kept["url"] if kept else "/", result=result, matches=matches,
                  related=related, text=text, environment_text=environment_text, counts=kb_counts(snap), kept=kept)


def error_page(request: Request, lang: str, status: int, title: str, message: str) -> HTMLResponse:
    return render(request, lang, "error.html", status=status, title=title, message=message)
