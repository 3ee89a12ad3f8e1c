"""A `MatchResult` as JSON in one language: the shape of `POST /match`, which the pages and the CLI
render too.  Reasons keep their code and parameters next to the text
(``{"code": ..., "params": {...}, "text": ...}``), so that clients can work from the codes."""
from __future__ import annotations

import time
from typing import Any, Callable

from faultline.entry import Entry
from faultline.i18n.reasons import finding_text, origin_text, reason_text
from faultline.matching.environment import requirement_holds
from faultline.matching.index import MatchIndex
from faultline.matching.rank import match
from faultline.matching.result import Consequence, EntryMatch, MatchResult, Reason, RootCause
from faultline.render.verdict import verdict_json
from faultline.render.view import dead_end_view, workaround_order, workaround_view

EntryLookup = Callable[[str], Entry]


def reason_json(r: Reason, lang: str) -> dict[str, Any]:
    return {"code": r.code, "params": dict(r.params), "text": reason_text(r.code, r.params, lang)}


def _workarounds(e: Entry, lang: str, versions: dict[str, str], fits: tuple = ()) -> list[dict[str, Any]]:
    """The entry's fixes for this log: those whose condition holds for the log come first, then those
    with no condition, then those whose condition fails or whose versions do not apply (marked), each
    group by success rate (view.workaround_order)."""
    out: list[dict[str, Any]] = []
    for i, w in enumerate(e.workarounds):
        holds = [requirement_holds(r, versions) for r in w.applies_to]
        applies = False if False in holds else (True if holds and all(holds) else None)
        view = workaround_view(w, lang, applies)
        view["fits_log"] = fits[i] if i < len(fits) else None
        out.append(view)
    return sorted(out, key=workaround_order)


def entry_match_json(m: EntryMatch, entry: EntryLookup, lang: str, versions: dict[str, str]) -> dict[str, Any]:
    e = entry(m.entry_id)
    best = m.best
    return {
        "id": e.id,
        "title": e.title.get(lang),
        "score": m.score,
        "confidence": m.confidence,
        "role": e.role,
        "matched": {"line": best.line.raw.strip(), "line_no": best.line.no, "rank": best.line.rank,
                    "signature": best.sig.name},
        "root_cause_match": m.on_root,
        "applies_to_environment": m.applies,
        "why": [reason_json(r, lang) for r in m.why],
        "leads_to": list(m.leads_to),
        "led_from": list(m.led_from),
        "consequences": [consequence_json(c, entry, lang) for c in m.consequences],
        "alternative_to": m.alternative_to,
        "fix_rate": e.fix_rate,
        "root_cause": e.root_cause.get(lang),
        "workarounds": _workarounds(e, lang, versions, m.fits),
        "dead_ends": [dead_end_view(d, lang) for d in e.ranked_dead_ends()],
        "versions": [{"package": v.package, "range": v.range, "status": v.status} for v in e.versions],
        "guides": [{"id": g, "url": f"/guides/{g}"} for g in e.guides],
        "url": f"/errors/{e.id}",
    }


def consequence_json(c: Consequence, entry: EntryLookup, lang: str) -> dict[str, Any]:
    """A match that the cause explains (a timeout on another rank, the launcher's report): its id and
    title, where it was seen and why it is only a consequence; its fixes are on its own page."""
    m = c.match
    best = m.best
    return {"id": m.entry_id, "title": entry(m.entry_id).title.get(lang), "confidence": m.confidence,
            "role": entry(m.entry_id).role, "line_no": best.line.no, "rank": best.line.rank,
            "reason": reason_json(c.reason, lang), "url": f"/errors/{m.entry_id}"}


def root_json(rc: RootCause | None, lang: str) -> dict[str, Any] | None:
    if rc is None:
        return None
    origin = None
    if rc.origin is not None:
        o = rc.origin
        origin = {"file": o.file, "line": o.line, "function": o.function, "package": o.package,
                  "version": o.version, "in_user_code": o.in_user_code, "user_file": o.user_file,
                  "user_line": o.user_line}
    out: dict[str, Any] = {"rank": rc.rank, "line": rc.line, "line_no": rc.line_no, "entry": rc.entry,
                           "is_cause": rc.is_cause, "exception": rc.exception, "origin": origin}
    if rc.entry is None:  # say plainly that no entry knows it, and where it was raised
        out["text"] = origin_text(origin, lang) if origin else origin_text(None, lang)
    return out


def match_json(res: MatchResult, entry: EntryLookup, lang: str = "en", limit: int = 5) -> dict[str, Any]:
    limit = max(1, min(int(limit), 50))
    return {
        "config": res.config,
        "matches": [entry_match_json(m, entry, lang, res.environment) for m in res.matches[:limit]],
        "related": [
            {"id": r.entry_id, "title": entry(r.entry_id).title.get(lang), "score": r.score,
             "url": f"/errors/{r.entry_id}", "why": reason_text(r.reason.code, r.reason.params, lang),
             "reason": {"code": r.reason.code, "params": dict(r.reason.params)}}
            for r in res.related[:limit]
        ],
        "root_cause": root_json(res.root_cause, lang),
        "verdict": verdict_json(res.verdict, entry, lang),
        "findings": [
            {"kind": f.kind, "message": finding_text(f.kind, lang), **f.params, "entries": list(f.entries)}
            for f in res.findings
        ],
        "benign": [{"id": b.entry_id, "title": entry(b.entry_id).title.get(lang), "line_no": b.line_no,
                    "line": b.line, "rank": b.rank, "url": f"/errors/{b.entry_id}"} for b in res.benign],
        "environment": res.environment,
        "log": {
            "lines": res.log.lines,
            "ranks": res.log.ranks,
            "exceptions": res.log.exceptions,
            "truncated": res.log.truncated,
            "dropped": res.log.dropped,
            "encoding": res.log.encoding,
            "failed_ranks": res.log.failed_ranks,
        },
    }


def match_text(index: MatchIndex, text: str, environment: Any = None, limit: int = 5,
               lang: str = "en", budget_ms: float | None = None, cancel: Any = None) -> dict[str, Any]:
    """Match and render in one call (the JSON of `POST /match`, with the time the match took).

    ``budget_ms``: a CPU budget for the match (app/matching/budget.py; the service sets one, local
    tools do not); ``cancel``: a threading.Event that stops the match when set (the client left)."""
    from faultline.matching.budget import budget

    t0 = time.perf_counter()
    with budget(budget_ms, cancel):
        res = match(index, text, environment)
    out = match_json(res, index.entry, lang, limit)
    out["took_ms"] = round((time.perf_counter() - t0) * 1000, 3)
    return out
