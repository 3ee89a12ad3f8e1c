"""An entry or guide as one language sees it: the JSON shape the API, the
exports and the pages share."""
from __future__ import annotations

from typing import Any

from app.entry import DeadEnd, Entry, Guide, Text, Workaround


def _t(text: Text | None, lang: str) -> str | None:
    return text.get(lang) if text is not None else None


def workaround_view(w: Workaround, lang: str, applies: bool | None = None) -> dict[str, Any]:
    return {
        "action": w.action.get(lang),
        "command": w.command,
        "success_rate": w.success_rate,
        "condition": _t(w.condition, lang),
        "tradeoff": _t(w.tradeoff, lang),
        "applies_to": w.applies_to,
        "applies": applies,
        "sources": w.sources,
    }


def dead_end_view(d: DeadEnd, lang: str) -> dict[str, Any]:
    return {
        "action": d.action.get(lang),
        "command": d.command,
        "why_fails": d.why_fails.get(lang),
        "fail_rate": d.fail_rate,
        "sources": d.sources,
    }


def entry_view(e: Entry, lang: str) -> dict[str, Any]:
    return {
        "id": e.id,
        "lang": lang,
        "url": f"/errors/{e.id}",
        "code": e.code,
        "title": e.title.get(lang),
        "error_text": e.error_text,
        "domain": e.domain,
        "category": e.category,
        "tags": e.tags,
        "role": e.role,
        "signatures": [
            {"name": s.name, "pattern": s.pattern, "ignore_case": s.ignore_case, "examples": s.examples,
             "versions": s.versions, "context": s.context}
            for s in e.signatures
        ],
        "root_cause": e.root_cause.get(lang),
        "docs": [d.model_dump() for d in e.docs],
        "workarounds": [workaround_view(w, lang) for w in e.ranked_workarounds()],
        "dead_ends": [dead_end_view(d, lang) for d in e.ranked_dead_ends()],
        "versions": [
            {
                "package": v.package,
                "range": v.range,
                "status": v.status,
                "introduced": v.introduced,
                "deprecated": v.deprecated,
                "notes": _t(v.notes, lang),
            }
            for v in e.versions
        ],
        "fix_rate": e.fix_rate,
        "confidence": e.confidence,
        "evidence_count": e.evidence_count,
        "first_seen": e.first_seen.isoformat(),
        "provenance": {
            "source": e.provenance.source,
            "rates": e.provenance.rates,
            "note": _t(e.provenance.note, lang),
            "attribution": e.provenance.attribution,
        },
        "completeness": e.completeness,
        "related": e.related,
        "guides": [{"id": g, "url": f"/guides/{g}"} for g in e.guides],
    }


def guide_view(g: Guide, lang: str, entries: list[str] | None = None) -> dict[str, Any]:
    return {
        "id": g.id,
        "lang": lang,
        "url": f"/guides/{g.id}",
        "title": g.title.get(lang),
        "summary": g.summary.get(lang),
        "sections": [
            {
                "id": s.id,
                "title": s.title.get(lang),
                "body": s.body.get(lang),
                "steps": [x.get(lang) for x in s.steps],
                "commands": s.commands,
                "table": (
                    {"header": [h.get(lang) for h in s.table.header], "rows": [[c.get(lang) for c in r] for r in s.table.rows]}
                    if s.table
                    else None
                ),
            }
            for s in g.sections
        ],
        "docs": [d.model_dump() for d in g.docs],
        "entries": entries or [],
    }
