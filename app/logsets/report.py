"""The text the CLI prints after the match report of several files: where each finding came from."""
from __future__ import annotations

from typing import Any

from faultline.i18n.translations import gettext_for


def _at(d: dict[str, Any]) -> str:
    where = f"{d['file']}:{d['file_line']}"
    return where + (f" ({d['file_part']})" if d.get("file_part") else "")


def files_report(res: dict[str, Any], lang: str = "en") -> str:
    _ = gettext_for(lang)
    files = res.get("files") or []
    out = ["", _("Files read: %(n)s", n=len(files))]
    rc = res.get("root_cause") or {}
    if rc.get("file"):
        out.append("  " + _("first failure: %(where)s", where=_at(rc)))
    for m in res.get("matches") or []:
        if m.get("matched", {}).get("file"):
            out.append(f"  {m['id']}: {_at(m['matched'])}")
    for t in res.get("timeline") or []:
        rank = "-" if t.get("rank") is None else t["rank"]
        out.append("  " + _("rank %(rank)s: %(exception)s at %(where)s", rank=rank, exception=t["exception"],
                            where=_at(t) if t.get("file") else "?"))
    for s in res.get("skipped_files") or []:
        out.append("  " + _("not read: %(name)s (%(why)s)", name=s["name"], why=s["why"]))
    return "\n".join(out)


__all__ = ["files_report"]
