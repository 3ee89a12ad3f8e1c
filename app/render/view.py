"""An entry or guide as one language sees it: the JSON shape the API, the
exports and the pages share."""
from __future__ import annotations

from typing import Any

from faultline.entry import DeadEnd, Entry, Guide, Text, Workaround
from faultline.rates import Rate, posterior
from faultline.render.evidence import dead_end_id, dead_end_rate, fix_rate, workaround_id, workaround_order, workaround_rate  # noqa: F401
from faultline.render.verdict import entry_verdict
from faultline.verification.records import localised as localised_verification


def _t(text: Text | None, lang: str) -> str | None:
    return text.get(lang) if text is not None else None


def workaround_view(w: Workaround, lang: str, applies: bool | None = None, rate: Rate | None = None) -> dict[str, Any]:
    r = rate or posterior(w.success_rate)  # without reports: the curated estimate, labelled as such
    return {
        "id": workaround_id(w),
        "action": w.action.get(lang),
        "command": w.command,
        "success_rate": round(r.mean, 3),
        "success_rate_evidence": r.as_dict(lang),
        "condition": _t(w.condition, lang),
        "tradeoff": _t(w.tradeoff, lang),
        "applies_to": w.applies_to,
        "when": w.when.model_dump(exclude_none=True) if w.when else None,
        "applies": applies,
        "sources": w.sources,
    }


def dead_end_view(d: DeadEnd, lang: str, rate: Rate | None = None) -> dict[str, Any]:
    r = rate or posterior(d.fail_rate)
    return {
        "id": dead_end_id(d),
        "action": d.action.get(lang),
        "command": d.command,
        "why_fails": d.why_fails.get(lang),
        "fail_rate": round(r.mean, 3),
        "fail_rate_evidence": r.as_dict(lang),
        "sources": d.sources,
    }


def _ranked(e: Entry, lang: str, counts) -> tuple[list[dict], list[dict]]:
    """Workarounds by posterior success rate, dead ends by posterior fail rate; each with its 1-based index."""
    was = [dict(workaround_view(w, lang, rate=workaround_rate(e, w, counts)), index=i) for i, w in enumerate(e.workarounds, 1)]
    des = [dict(dead_end_view(d, lang, rate=dead_end_rate(e, d, counts)), index=i) for i, d in enumerate(e.dead_ends, 1)]
    return sorted(was, key=lambda v: -v["success_rate"]), sorted(des, key=lambda v: -v["fail_rate"])


def entry_view(e: Entry, lang: str, counts=None) -> dict[str, Any]:
    """``counts``: the entry's outcome reports (app.store.written.Counts); None shows the curated estimates."""
    workarounds, dead_ends = _ranked(e, lang, counts)
    fix = fix_rate(e, counts)
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
             "versions": s.versions, "context": s.context,
             "verification": localised_verification(s.verification, lang)}
            for s in e.signatures
        ],
        "root_cause": e.root_cause.get(lang),
        "docs": [d.model_dump() for d in e.docs],
        "workarounds": workarounds,
        "dead_ends": dead_ends,
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
        "fix_rate": round(fix.mean, 3),
        "fix_rate_evidence": fix.as_dict(lang),
        "confidence": e.confidence,
        "evidence_count": e.evidence_count,  # reproduced logs, as curated
        "reproduced_logs": e.evidence_count,
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
        **entry_verdict(e, lang),
        # outcome reports on a transient failure: how many reporters reran it as is, and for how many that worked
        "retry_reports": {"retried": counts.retried, "worked": counts.retry_worked} if counts is not None else None,
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
