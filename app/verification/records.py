"""The verification records under ``kb/verification/<domain>/<slug>.json``, one file per entry.

A file holds one record per signature of its entry, in the entry's order::

    {"entry": "transformers/unrecognized-model-type",
     "signatures": [
       {"name": "does-not-recognize-architecture", "source": "pypi", "package": "transformers",
        "claim": ">=4.37", "claim_from": "note", "literals": ["..."], "pattern_sha": "...",
        "versions": {"4.36.0": false, "4.37.0": true, ...},
        "first_present": "4.37.0", "last_present": "5.25.0", "absent_before": "4.36.2",
        "absent_after": null, "gaps": [], "date": "2026-12-04"},
       {"name": "unrecognized-configuration-class", "uncheckable": "why no released package shows it"}]}

``claim_from`` is "note" when the claim was read from the signature's ``versions`` note (lint then
re-reads the note and refuses a record that no longer matches it) or "record" when the package and
range were written into the record by hand because the note names another package than the one that
prints the text (``lo``/``hi``/``below`` hold the range then).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

from faultline.verification.claims import Claim, disagreement, parse_claim, unreadable

DIR = "verification"


def pattern_sha(pattern: str) -> str:
    return hashlib.sha256(pattern.encode("utf-8")).hexdigest()[:16]


def record_path(kb_root: str | Path, entry_id: str) -> Path:
    return Path(kb_root) / DIR / f"{entry_id}.json"


def load(kb_root: str | Path, entry_id: str) -> Optional[dict]:
    p = record_path(kb_root, entry_id)
    if not p.exists():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


def save(kb_root: str | Path, entry_id: str, sig_records: list[dict]) -> Path:
    p = record_path(kb_root, entry_id)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({"entry": entry_id, "signatures": sig_records}, indent=1, ensure_ascii=False) + "\n",
                 encoding="utf-8")
    return p


def by_name(doc: Optional[dict]) -> dict[str, dict]:
    return {r["name"]: r for r in (doc or {}).get("signatures", []) if isinstance(r, dict) and "name" in r}


def claim_of(sig, rec: Optional[dict]) -> Optional[Claim]:
    """The claim a signature is checked against: the hand-written one of its record, else its note's."""
    if rec and rec.get("claim_from") == "record":
        return Claim(rec["source"], rec["package"], rec.get("lo"), rec.get("hi"), rec.get("below"))
    return parse_claim(sig.versions)


def problems(entry, doc: Optional[dict]) -> tuple[list[str], list[str]]:
    """(errors, warnings) of an entry's record file against the entry."""
    errors: list[str] = []
    warnings: list[str] = []
    if doc is None:
        return errors, warnings
    recs = by_name(doc)
    names = [s.name for s in entry.signatures]
    for extra in sorted(set(recs) - set(names)):
        errors.append(f"[verification.{extra}]: a record for a signature the entry does not have")
    for s in entry.signatures:
        rec = recs.get(s.name)
        where = f"[signatures.{s.name}]"
        if rec is None:
            errors.append(f"{where}: no verification record and no stated reason why none can exist "
                          f"(run `faultline verify --only {entry.id}`, or add an `uncheckable` reason)")
            continue
        if "uncheckable" in rec:
            if not str(rec["uncheckable"]).strip():
                errors.append(f"{where}: `uncheckable` needs a reason")
            continue
        claim = claim_of(s, rec)
        if claim is None:
            errors.append(f"{where}: the versions note names no package whose releases can be checked, "
                          f"but the record checked {rec.get('package')} {rec.get('claim')}")
            continue
        if unreadable(claim):
            errors.append(f"{where}: {unreadable(claim)}; rewrite the versions note")
            continue
        if rec.get("claim_from") != "record" and (claim.package != rec.get("package") or claim.spec != rec.get("claim")):
            errors.append(f"{where}: the versions note now claims {claim.package} {claim.spec}, the record checked "
                          f"{rec.get('package')} {rec.get('claim')}; run `faultline verify --only {entry.id}`")
            continue
        if rec.get("pattern_sha") != pattern_sha(s.pattern):
            warnings.append(f"{where}: the pattern changed since it was verified on {rec.get('date')}; "
                            f"run `faultline verify --only {entry.id}`")
        why = disagreement(claim, rec.get("first_present"), rec.get("last_present"),
                           rec.get("absent_before"), rec.get("absent_after"))
        if why:
            errors.append(f"{where}: version range disagrees with the verification record: {why} "
                          f"(checked {rec.get('date')})")
    return errors, warnings


def display(rec: Optional[dict]) -> Optional[dict]:
    """What a page or the JSON shows of one signature's record."""
    if not rec:
        return None
    if "uncheckable" in rec:
        return {"status": "uncheckable", "reason": rec["uncheckable"]}
    first, last = rec.get("first_present"), rec.get("last_present")
    out = {"status": "checked" if first else "not_found", "package": rec.get("package"),
           "claim": rec.get("claim"), "first_present": first, "last_present": last,
           "releases_checked": len(rec.get("versions", {})), "date": rec.get("date")}
    if first:
        out["summary"] = f"message checked in {rec.get('package')} {first}\u2013{last}"
    return out


def lint_kb(kb, kb_root, strict: bool = True) -> tuple[list[str], list[str]]:
    """(errors, warnings) of every record file against its entry, for `faultline lint`.

    Every entry must have a record file, and it must cover every signature of its entry (a checked
    record, or an `uncheckable` reason).  ``strict=False`` (drafting) says a missing file as a warning."""
    errors: list[str] = []
    warnings: list[str] = []
    known = {e.id for e in kb.entries}
    for e in kb.entries:
        f = kb.files.get(e.id, e.id)
        doc = load(kb_root, e.id)
        if doc is None:
            (errors if strict else warnings).append(
                f"{f} [verification]: no record file {DIR}/{e.id}.json: run `faultline verify --only {e.id}`, "
                f"and give each signature no released package shows an `uncheckable` reason (en and zh)")
            continue
        errs, warns = problems(e, doc)
        errors.extend(f"{f} {m}" for m in errs)
        warnings.extend(f"{f} {m}" for m in warns)
    base = Path(kb_root) / DIR
    for p in sorted(base.rglob("*.json")) if base.is_dir() else []:
        eid = p.relative_to(base).with_suffix("").as_posix()
        if eid not in known:
            errors.append(f"{p.relative_to(Path(kb_root)).as_posix()}: a verification record for unknown entry {eid!r}")
    return errors, warnings


def localised(shown: Optional[dict], lang: str) -> Optional[dict]:
    """``display``'s dict for one language: an uncheckable reason written as {en, zh} becomes one string."""
    if not shown or not isinstance(shown.get("reason"), dict):
        return shown
    reason = shown["reason"]
    return {**shown, "reason": reason.get(lang) or reason.get("en")}
