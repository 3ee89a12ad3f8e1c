"""A /match result as Markdown (`faultline match --format md`), e.g. to paste into an issue."""
from __future__ import annotations

from typing import Any

from faultline.render.labels import LABELS, pct
from faultline.render.text import as_text, fit_flag, rate_label, rates_estimated
from faultline.render.verdict import verdict_lines


def _code(s: str) -> str:
    fence = "```"
    while fence in s:
        fence += "`"
    return f"{fence}\n{s.rstrip()}\n{fence}"


def match_markdown(res: dict[str, Any], lang: str = "en", server: str | None = None, top_fixes: int = 3) -> str:
    L = LABELS[lang]
    base = server.rstrip("/") if server else ""
    out: list[str] = [f"# {L['matches']}", ""]
    rc = res.get("root_cause")
    if rc:
        rank = f" ({L['rank']} {rc['rank']})" if rc.get("rank") is not None else ""
        out += [f"**{L['root_cause_line']}{rank}** ({L['at_line'].format(n=rc.get('line_no'))}):", "", _code(rc["line"]), ""]
        if rc.get("text"):
            out += [rc["text"], ""]
    if res.get("verdict"):
        out += [f"- {line}" for line in verdict_lines(res["verdict"], lang)] + [""]
    for f in res.get("findings") or []:
        out += [f"> {as_text(f)}", ""]
    if not res.get("matches"):
        out += [L["no_match"], ""]
    for i, m in enumerate(res.get("matches") or [], 1):
        out += [f"## {i}. [{m['title']}]({base}{m['url']})", "",
                f"`{m['id']}` · {L['confidence']} {pct(m['confidence'])} · "
                f"{L['fix_rate']} {rate_label(m['fix_rate'], m.get('fix_rate_evidence'))}", ""]
        out += [f"- {as_text(w)}" for w in m.get("why") or []]
        out.append("")
        if m.get("workarounds"):
            out += [f"### {L['workarounds']}", ""]
            for j, w in enumerate(m["workarounds"][:top_fixes], 1):
                flag = fit_flag(w, L, " ⚠")
                out.append(f"{j}. **{rate_label(w['success_rate'], w.get('success_rate_evidence'))}** {w['action']}{flag}")
                if w.get("command"):
                    out += ["", "   " + _code(w["command"]).replace("\n", "\n   ")]
            out.append("")
        if m.get("dead_ends"):
            out += [f"### {L['dead_ends']}", ""]
            for d in m["dead_ends"][:2]:
                out.append(f"- ~~{d['action']}~~ ({L['fail']} {rate_label(d['fail_rate'], d.get('fail_rate_evidence'))})"
                           + (f": {d['why_fails']}" if d.get("why_fails") else ""))
            out.append("")
        if rates_estimated(m):
            out += [f"*{L['rates_estimated']}*", ""]
        if m.get("consequences"):
            out += [f"{L['consequences']}: " + ", ".join(f"[`{c['id']}`]({base}{c['url']})" for c in m["consequences"]), ""]
    if res.get("related"):
        out.append(f"{L['related_candidates']}: " + ", ".join(f"[`{r['id']}`]({base}{r['url']})" for r in res["related"]))
    return "\n".join(out).rstrip() + "\n"
