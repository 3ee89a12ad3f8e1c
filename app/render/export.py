"""Whole-KB export: one JSON document, or a directory of files."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from faultline.entry import Entry, Guide
from faultline.render.markdown import entry_markdown, guide_markdown
from faultline.render.view import entry_view, guide_view


def _guide_entries(entries: list[Entry]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in entries:
        for g in e.guides:
            out.setdefault(g, []).append(e.id)
    return out


def export_json(entries: list[Entry], guides: list[Guide], lang: str, counts: dict | None = None) -> dict[str, Any]:
    ge = _guide_entries(entries)
    return {
        "lang": lang,
        "count": len(entries),
        "entries": [entry_view(e, lang, (counts or {}).get(e.id)) for e in entries],
        "guides": [guide_view(g, lang, ge.get(g.id)) for g in guides],
    }


def export_markdown(entries: list[Entry], guides: list[Guide], lang: str, counts: dict | None = None) -> str:
    ge = _guide_entries(entries)
    parts = [entry_markdown(e, lang, (counts or {}).get(e.id)) for e in entries] + [guide_markdown(g, lang, ge.get(g.id)) for g in guides]
    return "\n---\n\n".join(parts)


def export_dir(entries: list[Entry], guides: list[Guide], fmt: str, lang: str, out: Path,
               counts: dict | None = None) -> int:
    """``counts``: outcome reports per entry id (rates are then labelled from N reports)."""
    ge = _guide_entries(entries)
    n = 0
    for e in entries:
        path = out / "errors" / f"{e.id}.{fmt}"
        path.parent.mkdir(parents=True, exist_ok=True)
        c = (counts or {}).get(e.id)
        body = (json.dumps(entry_view(e, lang, c), ensure_ascii=False, indent=2) + "\n") if fmt == "json" else entry_markdown(e, lang, c)
        path.write_text(body, encoding="utf-8")
        n += 1
    for g in guides:
        path = out / "guides" / f"{g.id}.{fmt}"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = (json.dumps(guide_view(g, lang, ge.get(g.id)), ensure_ascii=False, indent=2) + "\n") if fmt == "json" else guide_markdown(g, lang, ge.get(g.id))
        path.write_text(body, encoding="utf-8")
        n += 1
    return n
