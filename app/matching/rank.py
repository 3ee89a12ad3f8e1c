"""From a pasted log to ranked matches: hits, the root-cause rank, the
environment, scores and confidence, and the reasons for each rank."""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Any

from app.matching.environment import applicability, parse_environment, requirement_holds
from app.matching.index import Hit, MatchIndex, SigSpec
from app.matching.logparse import Line, ParsedLog
from app.render.view import dead_end_view, workaround_view

CONFIDENT = 0.5  # matches below this go to "related"
SPEC_SCALE = 18.0

# Lines that report a consequence of a failure elsewhere (another rank, the launcher).
_SYMPTOM = re.compile(
    r"timed out|timeout|communicator was aborted|Connection closed by peer|Connection reset by peer|"
    r"ChildFailedError|SIGTERM|Signal 15|Broken pipe|watchdog|heartbeat|Socket Timeout|"
    r"NCCL operations have failed|ncclRemoteError|remote process exiting|ProcessExitedException|"
    r"Received \d+ death signal|process \d+ terminated with exit code|DistStoreError|failed to recv|"
    r"KeyboardInterrupt",
    re.I,
)


def confidence_for(specificity: int) -> float:
    return 1.0 - math.exp(-specificity / SPEC_SCALE)


@dataclass
class Incident:
    line: Line
    cause: bool
    order: int


@dataclass
class EntryMatch:
    entry_id: str
    hits: list[Hit] = field(default_factory=list)
    on_root: bool = False
    applies: bool | None = None
    env_reasons: list[str] = field(default_factory=list)
    score: float = 0.0
    confidence: float = 0.0
    why: list[str] = field(default_factory=list)

    @property
    def best(self) -> Hit:
        return max(self.hits, key=lambda h: (h.sig.specificity, h.line.kind == "exception", -h.line.no))


def _root_cause(index: MatchIndex, parsed: ParsedLog, hits: list[Hit]) -> Line | None:
    roles_by_line: dict[int, set[str]] = {}
    for h in hits:
        roles_by_line.setdefault(h.line.no, set()).add(index.roles[h.sig.entry_id])
    incidents: list[Incident] = []
    seen: set[int] = set()
    for exc in parsed.exceptions:
        if exc.chained_from is not None:
            continue  # the first exception of a chain is the original one
        ln = exc.line
        roles = roles_by_line.get(ln.no, set())
        if "cause" in roles:
            cause = True
        elif roles:  # symptom or wrapper
            cause = False
        else:
            cause = not _SYMPTOM.search(ln.text)
        incidents.append(Incident(ln, cause, ln.no))
        seen.add(ln.no)
    for h in hits:
        if h.line.no in seen:
            continue
        seen.add(h.line.no)
        roles = roles_by_line[h.line.no]
        incidents.append(Incident(h.line, "cause" in roles, h.line.no))
    causes = [i for i in incidents if i.cause]
    # with no cause in the log, the first observed failure (a symptom) is still the best lead
    pool = causes or incidents
    if not pool:
        return None
    first_ranks = [f.rank for f in parsed.failed_ranks if f.first and f.rank is not None]
    if first_ranks and causes:
        preferred = [i for i in pool if i.line.rank in first_ranks]
        if preferred:
            pool = preferred
    return min(pool, key=lambda i: (i.line.ets, i.order)).line


def _is_cause(index: MatchIndex, line: Line, hits: list[Hit]) -> bool:
    roles = {index.roles[h.sig.entry_id] for h in hits if h.line.no == line.no}
    return "cause" in roles if roles else not _SYMPTOM.search(line.text)


_LAUNCHER_FAILED = re.compile(r"failed \(exitcode: -?\d+\) local_rank: (\d+)")
_WORK = re.compile(r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?")
_RANK_IN_TEXT = re.compile(r"\[(?:PG [^\]]*?)?Rank (\d+)\]")


def collective_desync(parsed: ParsedLog) -> dict[str, Any] | None:
    """Ranks that timed out in different collectives: the ranks were not running the same program step."""
    seen: dict[int, tuple[int, str, str | None]] = {}
    for ln in parsed.lines:
        m = _WORK.search(ln.text)
        if not m:
            continue
        rank = ln.rank
        if rank is None:
            rm = _RANK_IN_TEXT.search(ln.text)
            rank = int(rm.group(1)) if rm else None
        if rank is not None and rank not in seen:
            seen[rank] = (int(m.group(1)), m.group(2), m.group(3))
    if len(seen) < 2 or len(set(seen.values())) < 2:
        return None
    seqs = {v[0] for v in seen.values()}
    kind = "different_step" if len(seqs) > 1 else "different_collective"
    detail = {r: {"seq": v[0], "op": v[1], "numel_in": int(v[2]) if v[2] else None} for r, v in sorted(seen.items())}
    if kind == "different_step":
        msg = ("ranks timed out at different collective sequence numbers: some ranks ran more collectives than "
               "others (uneven inputs at an epoch end, a rank that skipped a step, or a rank that died)")
    else:
        msg = ("ranks timed out in the same collective step with different operations or sizes: "
               "they called mismatched collectives")
    return {"kind": kind, "message": msg, "ranks": detail}


TRUNCATED_WEIGHT = 0.8


def _truncated_hits(index: MatchIndex, parsed: ParsedLog, already: set[str]) -> list[Hit]:
    """A pasted message cut short (or a message whose variable tail differs) still names its entry
    when the whole pasted line occurs inside the entry's message text."""
    cands = [e.line for e in parsed.exceptions]
    if not cands:  # a bare message, pasted alone (possibly cut short)
        texts = [ln for ln in parsed.lines if ln.text]
        cands = texts if len(texts) <= 3 else []
    out: list[Hit] = []
    for ln in cands[-5:]:
        for eid in index.containing(ln.text):
            if eid in already:
                continue
            spec = int(sum(ch.isalnum() for ch in ln.text[:200]) * TRUNCATED_WEIGHT)
            out.append(Hit(SigSpec(eid, "truncated-text", "", True, None, (), spec), ln))
            already.add(eid)
    return out


def match_text(
    index: MatchIndex,
    text: str,
    environment: Any = None,
    limit: int = 5,
    lang: str = "en",
) -> dict[str, Any]:
    t0 = time.perf_counter()
    parsed = index.parse(text)
    hits = index.hits(parsed)
    hits += _truncated_hits(index, parsed, {h.sig.entry_id for h in hits})
    root = _root_cause(index, parsed, hits)
    root_is_cause = root is not None and _is_cause(index, root, hits)
    versions = dict(parsed.versions)
    versions.update(parse_environment(environment))

    by_entry: dict[str, EntryMatch] = {}
    for h in hits:
        by_entry.setdefault(h.sig.entry_id, EntryMatch(h.sig.entry_id)).hits.append(h)

    for m in by_entry.values():
        e = index.entry(m.entry_id)
        best = m.best
        conf = confidence_for(best.sig.specificity)
        names = {h.sig.name for h in m.hits}
        conf = min(0.99, conf + 0.03 * (len(names) - 1))
        m.why.append(
            f"signature '{best.sig.name}' matched line {best.line.no}"
            + (f" (rank {best.line.rank})" if best.line.rank is not None else "")
        )
        score = conf
        if root is not None and (
            any(h.line.no == root.no or h.line.block == root.no for h in m.hits)
            or (e.role == "cause" and root.rank is not None and any(h.line.rank == root.rank for h in m.hits))
        ):
            m.on_root = True
            score += 1.0
            if root_is_cause:
                m.why.append("it explains the first failure in the log (the root cause)")
            else:
                m.why.append("it is the first failure seen in the log; no earlier cause was found")
        if e.role == "cause":
            score += 0.25
        elif e.role == "wrapper":
            score -= 0.25
            m.why.append("this only reports that another process failed; the entries above say why")
        else:
            m.why.append("this error is usually a consequence of a failure elsewhere (another rank or process)")
        if best.line.kind in ("exception", "what"):
            score += 0.05
        m.applies, m.env_reasons = applicability(e, versions)
        if m.applies is False:
            score -= 0.6
            conf *= 0.7
            m.why.append("the environment's versions fall outside this entry's affected range: " + "; ".join(m.env_reasons))
        elif m.applies:
            m.why.append("the environment's versions are in this entry's affected range")
        m.score = round(score, 4)
        m.confidence = round(conf, 3)

    # entries the environment rules out go after every entry it does not rule out
    ranked = sorted(by_entry.values(), key=lambda m: (m.applies is False, -m.score, m.entry_id))
    matches = [m for m in ranked if m.confidence >= CONFIDENT]
    weak = [m for m in ranked if m.confidence < CONFIDENT]
    limit = max(1, min(int(limit), 50))

    related: list[dict[str, Any]] = []
    for m in weak:
        related.append({"id": m.entry_id, "title": index.entry(m.entry_id).title.get(lang),
                        "score": m.confidence, "url": f"/errors/{m.entry_id}", "why": "weak signature match"})
    desync = collective_desync(parsed)
    if desync:
        order = (["pytorch/uneven-inputs-epoch-end-hang", "pytorch/collective-mismatch-detected"]
                 if desync["kind"] == "different_step"
                 else ["pytorch/collective-mismatch-detected", "pytorch/uneven-inputs-epoch-end-hang"])
        have = {r["id"] for r in related} | {m.entry_id for m in ranked}
        related = [
            {"id": eid, "title": index.entry(eid).title.get(lang), "score": None, "url": f"/errors/{eid}",
             "why": "ranks timed out in different collectives (see findings)"}
            for eid in order if eid in index.roles and eid not in have
        ] + related
    if not matches:
        err_lines = [x.line.text for x in parsed.exceptions] or [ln.text for ln in parsed.lines[-20:]]
        for eid, s in index.similar("\n".join(err_lines), limit=3, exclude={m.entry_id for m in weak}):
            if s >= 0.25:
                related.append({"id": eid, "title": index.entry(eid).title.get(lang), "score": s,
                                "url": f"/errors/{eid}", "why": "similar words, no signature matched"})

    out = {
        "matches": [_match_view(index, m, lang, versions) for m in matches[:limit]],
        "related": related[:limit],
        "root_cause": _root_view(root, ranked, parsed),
        "findings": [desync] if desync else [],
        "environment": versions,
        "log": {
            "lines": len(parsed.lines),
            "ranks": parsed.ranks,
            "exceptions": len(parsed.exceptions),
            "truncated": parsed.truncated,
            "failed_ranks": [f.__dict__ for f in parsed.failed_ranks],
        },
        "took_ms": round((time.perf_counter() - t0) * 1000, 3),
    }
    return out


def _root_view(root: Line | None, ranked: list[EntryMatch], parsed: ParsedLog) -> dict[str, Any] | None:
    if root is None:
        return None
    known = next((m.entry_id for m in ranked if any(h.line.no == root.no or h.line.block == root.no for h in m.hits)), None)
    rank = root.rank
    if rank is None:  # a message naming its rank, e.g. "[Rank 3] Watchdog caught ..." (torch<=2.1)
        rm = _RANK_IN_TEXT.search(root.text)
        rank = int(rm.group(1)) if rm else None
    if rank is None and known:  # the same error reported with a rank elsewhere (a WARN line, then the exception)
        rank = next((h.line.rank for m in ranked if m.entry_id == known for h in sorted(m.hits, key=lambda h: h.line.no)
                     if h.line.rank is not None), None)
    if rank is None:  # torchrun's summary names the first failed rank
        rank = next((f.rank for f in parsed.failed_ranks if f.first and f.rank is not None), None)
    if rank is None:  # torchrun: "failed (exitcode: 1) local_rank: 1 (pid: ...)"
        rank = next((int(m.group(1)) for ln in parsed.lines for m in [_LAUNCHER_FAILED.search(ln.text)] if m), None)
    return {"rank": rank, "line": root.raw.strip(), "line_no": root.no, "entry": known}


def _match_view(index: MatchIndex, m: EntryMatch, lang: str, versions: dict[str, str]) -> dict[str, Any]:
    e = index.entry(m.entry_id)
    best = m.best
    was: list[tuple[bool, float, dict]] = []
    for w in e.workarounds:
        holds = [requirement_holds(r, versions) for r in w.applies_to]
        applies = False if False in holds else (True if holds and all(holds) else None)
        was.append((applies is False, -w.success_rate, workaround_view(w, lang, applies)))
    was.sort(key=lambda x: (x[0], x[1]))
    return {
        "id": e.id,
        "title": e.title.get(lang),
        "score": m.score,
        "confidence": m.confidence,
        "role": e.role,
        "matched": {
            "line": best.line.raw.strip(),
            "line_no": best.line.no,
            "rank": best.line.rank,
            "signature": best.sig.name,
        },
        "root_cause_match": m.on_root,
        "applies_to_environment": m.applies,
        "why": m.why,
        "fix_rate": e.fix_rate,
        "root_cause": e.root_cause.get(lang),
        "workarounds": [w for _, _, w in was],
        "dead_ends": [dead_end_view(d, lang) for d in e.ranked_dead_ends()],
        "versions": [{"package": v.package, "range": v.range, "status": v.status} for v in e.versions],
        "guides": [{"id": g, "url": f"/guides/{g}"} for g in e.guides],
        "url": f"/errors/{e.id}",
    }
