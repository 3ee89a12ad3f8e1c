"""Verifying one signature, or every signature of the KB, against the released packages."""
from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from typing import Optional

from faultline.verify import choose
from faultline.verification import records
from faultline.verification.claims import Claim, disagreement, unreadable
from faultline.verify.search import contains, message_literals
from faultline.verify.sources import Releases, Unavailable

MAX_ROUNDS = 12  # bisection rounds; log2 of the longest release list is well below this


@dataclass
class Outcome:
    entry: str
    signature: str
    status: str  # "agrees", "disagrees", "not_found", "uncheckable", "no_claim", "unreadable", "unavailable"
    record: Optional[dict] = None
    detail: str = ""


@dataclass
class Summary:
    outcomes: list[Outcome] = field(default_factory=list)
    downloads: int = 0

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)


def _present(rel: Releases, claim: Claim, version: str, literals: list[str], lit_key: str) -> Optional[bool]:
    key = f"{claim.source}|{claim.package}|{version}|{lit_key}"
    if key in rel.cache.results:
        return rel.cache.results[key]
    # a release the index has no fetchable file for is so for every signature: asked once, not per text
    gone = f"{claim.source}|{claim.package}|{version}|unavailable"
    if gone in rel.cache.results:
        return None
    try:
        found = contains(rel.text(claim.source, claim.package, version), literals)
    except Unavailable:
        if not rel.offline:  # the index has no file pip can fetch: do not ask again on the next run
            rel.cache.put(key, None)
            rel.cache.put(gone, None)
        return None
    rel.cache.put(key, found)
    return found


def _stand_in(releases: list[str], gone: str, skipped: set[str], seen: dict[str, bool]) -> Optional[str]:
    """What is searched instead of a release that cannot be fetched: the next newer one not yet tried, or,
    when no newer one is left (the newest release is not on this machine's index), the next older one
    (otherwise an open range's top would never be searched).  It is tried in the same round, so a long run
    of unfetchable releases (pip's oldest, sdist-only ones) does not use up the rounds of the bisection."""
    i = releases.index(gone)
    later = [r for r in releases[i + 1:] if r not in skipped and r not in seen]
    earlier = [r for r in reversed(releases[:i]) if r not in skipped and r not in seen]
    return later[0] if later else earlier[0] if earlier else None


def verify_signature(entry_id: str, sig, old: Optional[dict], rel: Releases, today: str) -> Outcome:
    if old and "uncheckable" in old:
        return Outcome(entry_id, sig.name, "uncheckable", old, old["uncheckable"])
    claim = records.claim_of(sig, old)
    if claim is None:
        return Outcome(entry_id, sig.name, "no_claim", None, "the versions note names no checkable package")
    why = unreadable(claim)
    if why:  # nothing is searched: the note must be rewritten first
        return Outcome(entry_id, sig.name, "unreadable", old, why)
    literals = message_literals(sig.pattern)
    if not literals:
        return Outcome(entry_id, sig.name, "no_claim", None, "the pattern has no literal text to search")
    lit_key = hashlib.sha256("\0".join(literals).encode()).hexdigest()[:16]
    try:
        releases = rel.versions(claim.source, claim.package)
    except Unavailable as exc:
        return Outcome(entry_id, sig.name, "unavailable", old, str(exc))
    seen: dict[str, bool] = {}
    todo = choose.first_sample(claim, releases)
    skipped: set[str] = set()
    for _round in range(MAX_ROUNDS * 2):
        for v in todo:
            while v is not None and v not in seen and v not in skipped:
                p = _present(rel, claim, v, literals, lit_key)
                if p is not None:
                    seen[v] = p
                    break
                skipped.add(v)
                v = _stand_in(releases, v, skipped, seen)
        live = [r for r in releases if r not in skipped]
        todo = [v for v in choose.next_to_check(live, seen) if v not in seen]
        if not todo:
            break
    if not seen:
        return Outcome(entry_id, sig.name, "unavailable", old, f"none of the {len(skipped)} releases tried could be read")
    summ = choose.summary([r for r in releases if r not in skipped], seen)
    rec = {"name": sig.name, "source": claim.source, "package": claim.package, "claim": claim.spec,
           "claim_from": old.get("claim_from", "note") if old else "note"}
    if rec["claim_from"] == "record":
        rec.update({"lo": claim.lo, "hi": claim.hi, "below": claim.below})
    if old and old.get("note"):
        rec["note"] = old["note"]
    rec.update({"literals": literals, "pattern_sha": records.pattern_sha(sig.pattern),
                "versions": {v: seen[v] for v in releases if v in seen}, **summ,
                "unavailable": sorted(skipped, key=releases.index), "date": today})
    why = disagreement(claim, summ["first_present"], summ["last_present"], summ["absent_before"], summ["absent_after"])
    if summ["first_present"] is None:
        return Outcome(entry_id, sig.name, "not_found", rec, why or "")
    return Outcome(entry_id, sig.name, "disagrees" if why else "agrees", rec, why or "")


def verify_kb(kb, kb_root, rel: Releases, only=None, write: bool = True,
              progress=None) -> Summary:
    """Verify every signature (of the entries named by ``only``: ids or domains) and write their records.

    A signature with no checkable claim gets no record here; one that has an ``uncheckable`` reason
    keeps it; every other record is replaced by the new observation.  The answers found are saved to the
    cache after each entry (when there are new ones) and at the end, not after every signature (a save
    re-reads and rewrites the whole answers file)."""
    today = dt.date.today().isoformat()
    summary = Summary()
    wanted = [only] if isinstance(only, str) else list(only or [])
    try:
        for e in kb.entries:
            if wanted and not any(e.id == w or e.id.startswith(w.rstrip("/") + "/") for w in wanted):
                continue
            doc = records.load(kb_root, e.id)
            old = records.by_name(doc)
            new: list[dict] = []
            for s in e.signatures:
                o = verify_signature(e.id, s, old.get(s.name), rel, today)
                summary.outcomes.append(o)
                if progress:
                    progress(o)
                if o.record is not None:
                    new.append(o.record)
            if write and (new or doc is not None):
                records.save(kb_root, e.id, new)
            rel.cache.save()
    finally:  # an interrupted run keeps what it found
        rel.cache.save()
    summary.downloads = rel.downloads
    return summary
