"""The human-readable report `faultline match` prints."""
from __future__ import annotations

from typing import Any

from app.render.labels import LABELS, pct


def match_report(res: dict[str, Any], lang: str = "en", top_fixes: int = 3) -> str:
    L = LABELS[lang]
    out: list[str] = []
    rc = res.get("root_cause")
    if rc:
        rank = f" ({L['rank']} {rc['rank']})" if rc.get("rank") is not None else ""
        out.append(f"{L['root_cause_line']}{rank}: {rc['line']}")
        out.append("")
    if not res["matches"]:
        out.append(L["no_match"])
    for i, m in enumerate(res["matches"], 1):
        out.append(f"{i}. {m['title']}  [{m['id']}]  {L['confidence']} {pct(m['confidence'])}, "
                   f"{L['fix_rate']} {pct(m['fix_rate'])}")
        out.append(f"   > {m['matched']['line'][:200]}")
        for why in m["why"]:
            out.append(f"   - {why}")
        for w in m["workarounds"][:top_fixes]:
            flag = "" if w["applies"] is not False else " (!)"
            out.append(f"   + {pct(w['success_rate'])} {w['action']}{flag}")
            if w["command"]:
                out += [f"       {line}" for line in w["command"].splitlines()[:4]]
        for d in m["dead_ends"][:2]:
            out.append(f"   x {pct(d['fail_rate'])} {d['action']}")
        out.append(f"   {m['url']}")
        out.append("")
    if res.get("related"):
        out.append(L["related_candidates"] + ": " + ", ".join(r["id"] for r in res["related"]))
    return "\n".join(out).rstrip() + "\n"
