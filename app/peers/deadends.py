"""`faultline import deadends FILE`: the public deadends.dev corpus (CC BY 4.0) as
Faultline entries, in a database of its own (never into kb/).

Each canon becomes an Entry with provenance ``imported`` and the corpus
attribution.  Its one regex is split at top-level alternatives into several
signatures, so each alternative gets its own literal anchor in our index; its
signature text becomes one more signature (escaped, numbers masked).  The
corpus has no Chinese text: ``zh`` repeats the English and the entry says so.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import ValidationError

from faultline.entry import Entry
from faultline.matching.index import SignatureError, compile_signature

ATTRIBUTION = "deadends.dev contributors, https://deadends.dev (CC BY 4.0); original id: {id}"
_SLUG = re.compile(r"[^a-z0-9._-]+")


def split_alternatives(pattern: str) -> list[str]:
    """'(a|b.*c)' or 'a|b' -> ['a', 'b.*c']: top-level alternatives, outer group removed."""
    p = pattern.strip()
    if p.startswith("(") and p.endswith(")") and _balanced_outer(p):
        inner = p[1:-1]
        if inner.startswith("?:"):
            inner = inner[2:]
        p = inner
    parts, depth, cur, esc, cls = [], 0, [], False, False
    for ch in p:
        if esc:
            cur.append(ch)
            esc = False
            continue
        if ch == "\\":
            cur.append(ch)
            esc = True
            continue
        if cls:
            cls = ch != "]"
        elif ch == "[":
            cls = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [x for x in (q.strip() for q in parts) if x]


def _balanced_outer(p: str) -> bool:
    depth, esc = 0, False
    for i, ch in enumerate(p):
        if esc:
            esc = False
            continue
        if ch == "\\":
            esc = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(p) - 1:
                return False
    return True


def literal_signature(text: str) -> str:
    """An escaped pattern for a message text, with digit runs masked."""
    first = next((ln for ln in text.splitlines() if ln.strip()), text).strip()
    words = [r"\d+".join(re.escape(x) for x in re.split(r"\d+", w)) for w in first.split()]
    return r"\s+".join(words)


def _text(s: str | None, fallback: str) -> dict[str, str]:
    s = (s or "").strip() or fallback
    return {"en": s, "zh": s}


def canon_to_entry(c: dict[str, Any]) -> Entry:
    err = c.get("error") or {}
    parts = c["id"].split("/")
    eid = f"{_SLUG.sub('-', parts[0].lower())}/{_SLUG.sub('-', '.'.join(parts[1:]).lower())}"
    sig_text = err.get("signature") or c["id"]
    sigs: list[dict[str, Any]] = []
    for i, alt in enumerate(split_alternatives(err.get("regex") or "")):
        try:
            compile_signature(eid, f"regex-{i}", alt, True)
        except SignatureError:
            continue
        sigs.append({"name": f"regex-{i}", "pattern": alt, "ignore_case": True, "examples": [sig_text]})
    sigs.append({"name": "signature", "pattern": literal_signature(sig_text), "ignore_case": True, "examples": [sig_text]})
    verdict = c.get("verdict") or {}
    summary = verdict.get("summary") or sig_text
    was = [
        {"action": _text(w.get("action"), "workaround"), "command": (w.get("how") or None),
         "success_rate": float(w.get("success_rate") or 0.0),
         "condition": _text(w.get("condition"), "") if w.get("condition") else None,
         "tradeoff": _text(w.get("tradeoff"), "") if w.get("tradeoff") else None,
         "sources": [s for s in (w.get("sources") or []) if isinstance(s, str)]}
        for w in (c.get("workarounds") or [])
    ] or [{"action": _text(summary, summary), "success_rate": 0.0}]
    des = [
        {"action": _text(d.get("action"), "dead end"), "why_fails": _text(d.get("why_fails"), "not stated"),
         "fail_rate": float(d.get("fail_rate") or 0.0), "sources": [s for s in (d.get("sources") or []) if isinstance(s, str)]}
        for d in (c.get("dead_ends") or [])
    ]
    versions = []
    rt = ((c.get("environment") or {}).get("runtime") or {})
    if rt.get("name") and rt.get("version_range"):
        try:
            SpecifierSet(str(rt["version_range"]))
            versions.append({"package": _SLUG.sub("-", str(rt["name"]).lower()) or "runtime",
                             "range": str(rt["version_range"]), "status": "affected"})
        except InvalidSpecifier:
            pass
    meta = c.get("metadata") or {}
    data = {
        "id": eid,
        "title": _text(sig_text, c["id"]),
        "error_text": sig_text,
        "category": err.get("category") or "unknown",
        "tags": [err.get("domain") or parts[0]],
        "signatures": sigs,
        "root_cause": _text(summary, sig_text),
        "docs": [{"url": c.get("url") or f"https://deadends.dev/{c['id']}", "title": "deadends.dev"}],
        "workarounds": was,
        "dead_ends": des,
        "versions": versions,
        "fix_rate": min(max(float(verdict.get("fix_success_rate") or 0.0), 0.0), 1.0),
        "confidence": min(max(float(verdict.get("confidence") or 0.0), 0.0), 1.0),
        "evidence_count": int(meta.get("evidence_count") or 0),
        "first_seen": err.get("first_seen") or "2026-01-01",
        "provenance": {
            "source": "imported",
            "rates": "estimated",
            "note": {"en": f"Imported as published ({meta.get('review_status', 'unknown')}); not translated.",
                     "zh": f"按原样导入（{meta.get('review_status', 'unknown')}），未翻译。"},
            "attribution": ATTRIBUTION.format(id=c["id"]),
        },
        "completeness": "partial",
    }
    return Entry.model_validate(data)


def read_canons(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue


def convert(path: Path) -> tuple[list[Entry], int]:
    entries: dict[str, Entry] = {}
    skipped = 0
    for c in read_canons(path):
        try:
            e = canon_to_entry(c)
        except (ValidationError, KeyError, TypeError, ValueError):
            skipped += 1
            continue
        if e.id in entries:
            skipped += 1
            continue
        entries[e.id] = e
    return list(entries.values()), skipped


def import_deadends(path: Path, db_path: str | Path) -> tuple[int, int]:
    from faultline.store.load import write_entries

    entries, skipped = convert(path)
    write_entries(db_path, entries, [], source=f"deadends:{path.name}")
    return len(entries), skipped
