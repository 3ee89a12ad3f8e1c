"""An entry's rates with its outcome reports: ids of workarounds and dead ends, the posterior
rates of an entry, and the same applied to a /match result."""
from __future__ import annotations

import functools
import hashlib
import re
from typing import Any, Callable

from faultline.entry import DeadEnd, Entry, Workaround
from faultline.rates import Rate, posterior
from faultline.store.written import Counts

_WS = re.compile(r"\s+")



def workaround_order(wv: dict[str, Any]) -> tuple:
    """How a rendered workaround sorts among its entry's for one log: those whose condition holds for the
    log first, then those with none, then those that do not fit the log or the versions; by rate within."""
    unfit = wv.get("applies") is False or wv.get("fits_log") is False
    return (2 if unfit else (0 if wv.get("fits_log") else 1), -wv["success_rate"])


@functools.lru_cache(maxsize=8192)  # a pure function of the KB's text: each /match renders the same few again
def _key(prefix: str, text: str) -> str:
    norm = _WS.sub(" ", text).strip().lower()
    return prefix + hashlib.sha256(norm.encode("utf-8")).hexdigest()[:10]


def workaround_id(w: Workaround) -> str:
    """A stable id: from the English action, so re-ranking or translating never moves a report."""
    return _key("wa-", w.action.en)


def dead_end_id(d: DeadEnd) -> str:
    return _key("de-", d.action.en)


def _measured(e: Entry) -> bool:
    return e.provenance.rates == "measured"


def workaround_rate(e: Entry, w: Workaround, c: Counts | None) -> Rate:
    s, f = c.of("workaround", workaround_id(w)) if c else (0, 0)
    return posterior(w.success_rate, s, f, _measured(e))


def dead_end_rate(e: Entry, d: DeadEnd, c: Counts | None) -> Rate:
    s, f = c.of("dead_end", dead_end_id(d)) if c else (0, 0)
    return posterior(d.fail_rate, f, s, _measured(e))  # a dead end "fails" when the report says it did not work


def fix_rate(e: Entry, c: Counts | None) -> Rate:
    return posterior(e.fix_rate, c.fixed if c else 0, c.not_fixed if c else 0, _measured(e))


def find_target(e: Entry, kind: str, ref: int | str) -> tuple[int, str] | None:
    """(1-based index, id) of the workaround or dead end named by index or id; None when there is none."""
    items = e.workarounds if kind == "workaround" else e.dead_ends
    ident = workaround_id if kind == "workaround" else dead_end_id
    if isinstance(ref, int):
        return (ref, ident(items[ref - 1])) if 1 <= ref <= len(items) else None
    for i, it in enumerate(items, 1):
        if ident(it) == ref:
            return i, ref
    return None


def annotate_match(result: dict[str, Any], entry_of: Callable[[str], Entry | None],
                   counts: dict[str, Counts], lang: str) -> dict[str, Any]:
    """Put the posterior rates (and the ids reports use) into a /match result, in place.

    Workarounds that do not apply to the given versions stay last; the rest are ranked by
    their posterior success rate.
    """
    for m in result.get("matches", []):
        e = entry_of(m["id"])
        if e is None:
            continue
        c = counts.get(e.id)
        by_wid = {workaround_id(w): (i, w) for i, w in enumerate(e.workarounds, 1)}
        by_did = {dead_end_id(d): (i, d) for i, d in enumerate(e.dead_ends, 1)}
        r = fix_rate(e, c)
        m["fix_rate"] = round(r.mean, 3)
        m["fix_rate_evidence"] = r.as_dict(lang)
        for wv in m.get("workarounds", []):
            hit = by_wid.get(wv.get("id", ""))
            if hit:
                i, w = hit
                r = workaround_rate(e, w, c)
                wv.update(index=i, success_rate=round(r.mean, 3), success_rate_evidence=r.as_dict(lang))
        m["workarounds"].sort(key=workaround_order)
        for dv in m.get("dead_ends", []):
            hit = by_did.get(dv.get("id", ""))
            if hit:
                i, d = hit
                r = dead_end_rate(e, d, c)
                dv.update(index=i, fail_rate=round(r.mean, 3), fail_rate_evidence=r.as_dict(lang))
        m["dead_ends"].sort(key=lambda dv: -dv["fail_rate"])
    return result


def fix_fields(estimate: float, c: Counts | None, lang: str, measured: bool = False) -> dict[str, Any]:
    """``fix_rate`` and ``fix_rate_evidence`` for a list item (an entry's summary, not the entry)."""
    r = posterior(estimate, c.fixed if c else 0, c.not_fixed if c else 0, measured)
    return {"fix_rate": round(r.mean, 3), "fix_rate_evidence": r.as_dict(lang)}


def with_local_reports(result: dict[str, Any], target, entry_of: Callable[[str], Entry | None], lang: str) -> dict[str, Any]:
    """annotate_match with the reports stored in a local database (the CLI without a server)."""
    from faultline.store.written import read_counts

    ids = [m["id"] for m in result.get("matches", [])]
    return annotate_match(result, entry_of, read_counts(target, ids) if ids else {}, lang)
