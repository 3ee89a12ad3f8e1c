"""The verdict on a root cause (who must act, whether a retry as is can help) as JSON in one language.

An entry's verdict gives its own reasons (its ``blame.reason`` / ``retry.reason`` text); a derived one
gives its reason codes, rendered by app/i18n/reasons.py.  Each part keeps its kind and code next to
the text, so that a program can work from ``verdict.retry.kind`` alone."""
from __future__ import annotations

from typing import Any, Callable

from faultline.entry import BlameVerdict, Entry, RetryVerdict
from faultline.i18n.reasons import blame_label, retry_label, verdict_reason_text
from faultline.matching.result import Reason, Verdict
from faultline.render.labels import LABELS, pct


def _part(kind: str, label: str, reason: Reason | None, text: str | None) -> dict[str, Any]:
    return {"kind": kind, "label": label, "reason": text,
            "code": reason.code if reason else None, "params": dict(reason.params) if reason else {}}


def verdict_json(v: Verdict | None, entry: Callable[[str], Entry], lang: str) -> dict[str, Any] | None:
    if v is None:
        return None
    e = entry(v.entry) if v.source == "entry" and v.entry else None

    def text(r: Reason | None, own: BlameVerdict | RetryVerdict | None) -> str | None:
        if own is not None:
            return own.reason.get(lang)
        return verdict_reason_text(r.code, r.params, lang) if r is not None else None

    return {
        "blame": _part(v.blame, blame_label(v.blame, lang), v.blame_reason, text(v.blame_reason, e and e.blame)),
        "retry": _part(v.retry, retry_label(v.retry, lang), v.retry_reason, text(v.retry_reason, e and e.retry)),
        "source": v.source,
        "origin": v.origin,
        "entry": v.entry,
        "package": v.package,
        "signal": v.signal,
        "confidence": v.confidence,
    }


def entry_verdict(e: Entry, lang: str) -> dict[str, Any]:
    """An entry's own blame and retry, for its page and `GET /errors/{id}` (None where it has none yet)."""
    return {
        "blame": None if e.blame is None else
        {"kind": e.blame.kind, "label": blame_label(e.blame.kind, lang), "reason": e.blame.reason.get(lang)},
        "retry": None if e.retry is None else
        {"kind": e.retry.kind, "label": retry_label(e.retry.kind, lang), "reason": e.retry.reason.get(lang)},
    }


def verdict_lines(v: dict[str, Any] | None, lang: str) -> list[str]:
    """A /match verdict as plain lines (the CLI's text, Markdown and `faultline run`'s diagnosis)."""
    if not v:
        return []
    L = LABELS.get(lang, LABELS["en"])
    colon, (po, pc), comma = ("：", "（）", "，") if lang == "zh" else (": ", (" (", ")"), ", ")
    out = []
    for key in ("blame", "retry"):
        part = v[key]
        reason = f"{po}{part['reason']}{pc}" if part.get("reason") else ""
        out.append(f"{L[key]}{colon}{part['label']}{reason}")
    source = L["verdict_entry"] if v.get("source") == "entry" else L["verdict_derived"]
    conf = L["confidence"].lower() if lang == "en" else L["confidence"]
    out.append(f"{source}{comma}{conf} {pct(v['confidence'])}")
    return out


def verdict_line(v: dict[str, Any] | None, lang: str) -> str | None:
    """The verdict in one line (`faultline run`'s short diagnosis): who must act, and whether to retry."""
    if not v:
        return None
    L = LABELS.get(lang, LABELS["en"])
    colon, sep = ("：", "；") if lang == "zh" else (": ", " · ")
    return f"{L['blame']}{colon}{v['blame']['label']}{sep}{L['retry']}{colon}{v['retry']['label']}"
