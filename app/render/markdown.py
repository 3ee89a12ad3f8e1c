"""Entries and guides as Markdown documents."""
from __future__ import annotations

from faultline.entry import Entry, Guide
from faultline.render.labels import LABELS, pct, rate_note, rate_text
from faultline.render.view import entry_view, guide_view


def _fence(code: str) -> str:
    ticks = "```"
    while ticks in code:
        ticks += "`"
    return f"{ticks}\n{code.rstrip()}\n{ticks}"


def _cell(s: str | None) -> str:
    return (s or "—").replace("|", "\\|").replace("\n", " ")


def entry_markdown(e: Entry, lang: str, counts=None) -> str:
    v = entry_view(e, lang, counts)
    L = LABELS[lang]
    other = "zh" if lang == "en" else "en"
    out = [f"# {v['title']}", ""]
    out.append(f"**{L['id']}:** `{v['id']}`" + (f" · `{v['code']}`" if v["code"] else "")
               + f" · {L['category']}: {v['category']} · {L['tags']}: {', '.join(v['tags'])}")
    out.append("")
    out.append(f"{L['also']}: [JSON](/errors/{e.id}.json?lang={lang}) · "
               f"[{'中文' if other == 'zh' else 'English'}](/errors/{e.id}.md?lang={other})")
    out.append("")
    out.append(f"| {L['fix_rate']} | {L['confidence']} | {L['evidence']} | {L['first_seen']} |")
    out.append("|---|---|---|---|")
    out.append(f"| {rate_text(v['fix_rate_evidence'], lang)} | {pct(v['confidence'])} | {v['evidence_count']} "
               f"| {v['first_seen']} |")
    said = [f"- **{L[k]}:** {v[k]['label']} — {v[k]['reason']}" for k in ("blame", "retry") if v.get(k)]
    out += [""] + said if said else []
    out += ["", f"## {L['error']}", "", _fence(v["error_text"]), "", f"## {L['signatures']}", ""]
    for s in v["signatures"]:
        note = f" ({s['versions']})" if s["versions"] else ""
        out.append(f"- `{s['name']}`{note}: `{s['pattern']}`")
    out += ["", f"## {L['root_cause']}", "", v["root_cause"], "", f"## {L['workarounds']}", ""]
    for i, w in enumerate(v["workarounds"], 1):
        out.append(f"{i}. **{pct(w['success_rate'])} {L['success']}** ({rate_note(w['success_rate_evidence'], lang)}) "
                   f"— {w['action']} `#{w['index']}`")
        if w["condition"]:
            out.append(f"   - {L['when']}: {w['condition']}")
        if w["tradeoff"]:
            out.append(f"   - {L['tradeoff']}: {w['tradeoff']}")
        if w["applies_to"]:
            out.append(f"   - {', '.join(w['applies_to'])}")
        if w["command"]:
            out += ["", "   " + _fence(w["command"]).replace("\n", "\n   "), ""]
    out += ["", f"## {L['dead_ends']}", "", L["dead_ends_intro"], ""]
    for i, d in enumerate(v["dead_ends"], 1):
        out.append(f"{i}. **{pct(d['fail_rate'])} {L['fail']}** ({rate_note(d['fail_rate_evidence'], lang)}) "
                   f"— {d['action']} `#{d['index']}`")
        out.append(f"   - {L['why']}: {d['why_fails']}")
        if d["command"]:
            out += ["", "   " + _fence(d["command"]).replace("\n", "\n   "), ""]
    out += ["", f"## {L['versions']}", "",
            f"| {L['package']} | {L['range']} | {L['status']} | {L['introduced']} | {L['deprecated']} | {L['notes']} |",
            "|---|---|---|---|---|---|"]
    for r in v["versions"]:
        out.append(f"| {_cell(r['package'])} | {_cell(r['range'])} | {_cell(r['status'])} | {_cell(r['introduced'])} "
                   f"| {_cell(r['deprecated'])} | {_cell(r['notes'])} |")
    out += ["", f"## {L['docs']}", ""]
    out += [f"- [{d['title'] or d['url']}]({d['url']})" for d in v["docs"]]
    if v["related"]:
        out += ["", f"## {L['related']}", ""] + [f"- [{r}](/errors/{r}.md?lang={lang})" for r in v["related"]]
    if v["guides"]:
        out += ["", f"## {L['guides']}", ""] + [f"- [{g['id']}](/guides/{g['id']}.md?lang={lang})" for g in v["guides"]]
    p = v["provenance"]
    rates = L["rates_estimated"] if p["rates"] == "estimated" else L["rates_measured"]
    out += ["", f"## {L['provenance']}", "", f"{p['source']}, {rates}, {v['completeness']}."
            + (f" {p['note']}" if p["note"] else "") + (f" {p['attribution']}" if p["attribution"] else "")]
    return "\n".join(out).rstrip() + "\n"


def guide_markdown(g: Guide, lang: str, entries: list[str] | None = None) -> str:
    v = guide_view(g, lang, entries)
    L = LABELS[lang]
    out = [f"# {v['title']}", "", v["summary"], ""]
    for s in v["sections"]:
        out += [f"## {s['title']}", "", s["body"], ""]
        out += [f"{i}. {step}" for i, step in enumerate(s["steps"], 1)]
        if s["steps"]:
            out.append("")
        if s["table"]:
            t = s["table"]
            out.append("| " + " | ".join(_cell(h) for h in t["header"]) + " |")
            out.append("|" + "---|" * len(t["header"]))
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in t["rows"]]
            out.append("")
        if s["commands"]:
            out += [_fence("\n".join(s["commands"])), ""]
    if v["docs"]:
        out += [f"## {L['docs']}", ""] + [f"- [{d['title'] or d['url']}]({d['url']})" for d in v["docs"]] + [""]
    if v["entries"]:
        out += [f"## {L['entries']}", ""] + [f"- [{x}](/errors/{x}.md?lang={lang})" for x in v["entries"]]
    return "\n".join(out).rstrip() + "\n"
