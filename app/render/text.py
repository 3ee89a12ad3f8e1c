"""The human-readable report `faultline match` prints."""
from __future__ import annotations

from typing import Any

from faultline.render.labels import LABELS, pct
from faultline.render.verdict import verdict_lines


def as_text(x: Any) -> str:
    """A finding as the result gives it: a sentence, or a code with its rendered text."""
    if isinstance(x, dict):
        return str(x.get("text") or x.get("message") or x.get("code") or x.get("kind") or "")
    return str(x)


def rate_label(value: float, evidence: dict[str, Any] | None) -> str:
    """A rate, with where it comes from when the result says so and it is not the curated estimate."""
    if evidence and evidence.get("basis") not in (None, "estimated") and evidence.get("label"):
        return f"{pct(value)} ({evidence['label']})"
    return pct(value)


def rates_estimated(m: dict[str, Any]) -> bool:
    """True when a match's rates are (some of them) curated estimates, not from outcome reports."""
    ev = [m.get("fix_rate_evidence")] + [w.get("success_rate_evidence") for w in m.get("workarounds", [])]
    ev = [e for e in ev if e]
    return not ev or any(e.get("basis") == "estimated" for e in ev)


def fit_flag(w: dict[str, Any], L: dict[str, str], unfit: str) -> str:
    """The mark after a workaround: it fits this log (its condition holds), or it does not (its
    condition or versions fail), or nothing."""
    if w.get("applies") is False or w.get("fits_log") is False:
        return f"{unfit} {L['not_this_log']}" if w.get("fits_log") is False else unfit
    return f" ({L['fits_log']})" if w.get("fits_log") else ""


def match_report(res: dict[str, Any], lang: str = "en", top_fixes: int = 3) -> str:
    L = LABELS[lang]
    out: list[str] = []
    rc = res.get("root_cause")
    if rc:
        rank = f" ({L['rank']} {rc['rank']})" if rc.get("rank") is not None else ""
        out.append(f"{L['root_cause_line']}{rank}: {rc['line']}")
        if rc.get("text"):  # no entry knows it: where it was raised
            out.append(f"  {rc['text']}")
        out.append("")
    if res.get("verdict"):  # who must act, and whether a retry as is can help
        out += verdict_lines(res["verdict"], lang) + [""]
    for f in res.get("findings") or []:
        out.append(f"! {as_text(f)}")
    if res.get("findings"):
        out.append("")
    if not res["matches"]:
        out.append(L["no_match"])
    for i, m in enumerate(res["matches"], 1):
        out.append(f"{i}. {m['title']}  [{m['id']}]  {L['confidence']} {pct(m['confidence'])}, "
                   f"{L['fix_rate']} {rate_label(m['fix_rate'], m.get('fix_rate_evidence'))}")
        out.append(f"   > {m['matched']['line'][:200]}")
        for why in m["why"]:  # reasons come rendered in ``lang`` (app/render/match.py)
            out.append(f"   - {why['text'] if isinstance(why, dict) else why}")
        for w in m["workarounds"][:top_fixes]:
            flag = fit_flag(w, L, " (!)")
            out.append(f"   + {rate_label(w['success_rate'], w.get('success_rate_evidence'))} {w['action']}{flag}")
            if w["command"]:
                out += [f"       {line}" for line in w["command"].splitlines()[:4]]
        for d in m["dead_ends"][:2]:
            out.append(f"   x {rate_label(d['fail_rate'], d.get('fail_rate_evidence'))} {d['action']}")
        if rates_estimated(m):
            out.append(f"   ({L['rates_estimated']})")
        for c in m.get("consequences") or []:  # explained by this match: one line each, no fixes
            where = f", {L['rank']} {c['rank']}" if c.get("rank") is not None else ""
            out.append(f"   ~ {L['consequences']}: {c['title']}  [{c['id']}]{where}")
        out.append(f"   {m['url']}")
        out.append("")
    if res.get("related"):
        out.append(L["related_candidates"] + ": " + ", ".join(r["id"] for r in res["related"]))
    return "\n".join(out).rstrip() + "\n"
