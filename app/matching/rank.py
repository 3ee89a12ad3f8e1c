"""From a pasted log to a typed, language-free `MatchResult`.

The pipeline (`match`) is a row of named steps, each pure:

    parse -> find hits -> choose the root cause -> read versions -> score each entry
    -> apply the KB's relations (leads_to) -> partition (matches / weak / benign)
    -> findings -> related entries -> the root cause's rank, entry and origin

The weights come from one versioned `RankConfig` (app/matching/config.py).  Nothing here
knows a language: reasons are `Reason(code, params)`; app/render/match.py renders them.
"""
from __future__ import annotations

import builtins
import math
from typing import Any

import re2

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.environment import applicability, parse_environment
from faultline.matching.exits import SIG_NAME as EXIT_SIGNAL, exit_reason, exit_signal_hits
from faultline.matching.findings import detect, rank_in_text
from faultline.matching.index import Hit, MatchIndex, SigSpec
from faultline.matching.logparse import Line, ParsedLog, PyException, parse_log
from faultline.matching.recall import LOW_EVIDENCE, recall_hits
from faultline.matching.tracebacks import exception_line
from faultline.matching.conditions import fits
from faultline.matching.interrupts import caused_by_interrupt, interrupted
from faultline.matching.result import (
    BenignLine,
    Consequence,
    EntryMatch,
    LogSummary,
    MatchResult,
    Reason,
    Related,
    RootCause,
)
from faultline.matching.budget import current as current_budget
from faultline.matching.roots import choose_root, is_cause, is_warning, origin_of
from faultline.matching.verdict import verdict_of

SIMILAR_LINE_CHARS = 400
_OWN_RANK = re2.compile(r"Initializing distributed: GLOBAL_RANK: (\d+), MEMBER: \d+/\d+")
_LAUNCHER_FAILED = re2.compile(r"failed \(exitcode: -?\d+\) local_rank: (\d+)")


def confidence_for(specificity: int, cfg: RankConfig = DEFAULT) -> float:
    return 1.0 - math.exp(-specificity / cfg.spec_scale)


# ----------------------------------------------------------------------------- steps


def find_hits(index: MatchIndex, parsed: ParsedLog, cfg: RankConfig = DEFAULT) -> list[Hit]:
    hits = index.hits(parsed)
    hits += qualified_hits(index, parsed, {(h.sig.entry_id, h.line.no) for h in hits})
    known = {h.line.block if h.line.block is not None else h.line.no for h in hits}  # exceptions a signature knows
    hits += truncated_hits(index, parsed, {h.sig.entry_id for h in hits}, cfg, known)
    hits += bare_kill_hits(index, parsed, {h.sig.entry_id for h in hits}, cfg)
    hits += exit_signal_hits(index, parsed, {h.sig.entry_id for h in hits}, cfg)  # exits.py
    return hits + recall_hits(index, parsed, {h.sig.entry_id for h in hits}, cfg)  # recall.py: the other forms


# Python < 3.10 names no class in a TypeError raised while binding a call's arguments
# ("TypeError: __init__() got an unexpected keyword argument 'no_cuda'"); the call is on the source
# line of the last frame, printed right above the exception line
_UNQUALIFIED_KWARG = re2.compile(r"^__init__\(\) got an unexpected keyword argument '(\w+)'$")
_CALLEE = re2.compile(r"\b([A-Z]\w*)\(")


def qualified_hits(index: MatchIndex, parsed: ParsedLog, seen: set[tuple[str, int]]) -> list[Hit]:
    """An unqualified ``__init__() got an unexpected keyword argument`` qualified with the class the
    failing source line calls, then matched as Python >= 3.10 would have printed it.  A class no entry
    names (the user's own) matches nothing."""
    excs = [e for e in parsed.exceptions if e.type == "TypeError" and e.message.startswith("__init__() got")]
    if not excs:
        return []
    pos = {id(ln): i for i, ln in enumerate(parsed.lines)}
    out: list[Hit] = []
    for e in excs:
        km = _UNQUALIFIED_KWARG.match(e.message)
        i = pos.get(id(e.line))
        if km is None or i is None:
            continue
        code = next((ln for ln in reversed(parsed.lines[max(0, i - 2):i]) if ln.kind == "code" and ln.rank == e.line.rank),
                    None)
        cm = _CALLEE.search(code.text) if code is not None else None
        if cm is None:
            continue
        probe = f"TypeError: {cm.group(1)}.__init__() got an unexpected keyword argument '{km.group(1)}'"
        for h in index.hits(parse_log(probe)):
            if (h.sig.entry_id, e.line.no) not in seen:
                seen.add((h.sig.entry_id, e.line.no))
                out.append(Hit(h.sig, e.line))
    return out


# A run that ends in a bare "Killed" (the shell's report of SIGKILL) or a launcher's exit code -9 / 137
_BARE_KILL = re2.compile(
    # a tqdm bar redrawn with "\r" leaves the shell's report at the end of its last state: "... 3.06it/s]Killed"
    r"^(?:Killed|Killed: 9)$|(?:it/s|s/it)\]Killed$"
    r"|(?i:exit(?:ed)?(?: with)? (?:code|status)|exitcode|return code|returncode)\W{0,3}(?:-9|137)\b"
)
# what the KB knows a SIGKILL of a worker by (the entry that matches it says what to do)
_KILL_PROBE = "traceback : Signal 9 (SIGKILL) received by PID 1"


def bare_kill_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    """A training log that ends in a bare kill: the host's out-of-memory killer, at lower confidence."""
    tail = [ln for ln in parsed.lines[-8:] if ln.text]
    # every form holds "Killed", "-9" or "137"
    kill = next((ln for ln in reversed(tail[-5:]) if ("Killed" in ln.text or "-9" in ln.text or "137" in ln.text)
                 and _BARE_KILL.search(ln.text)), None)
    if kill is None:
        return []
    spec = int(-math.log(1 - cfg.killed_confidence) * cfg.spec_scale) + 1
    out = []
    for h in index.hits(parse_log(_KILL_PROBE)):
        if h.sig.entry_id not in already:
            already.add(h.sig.entry_id)
            out.append(Hit(SigSpec(h.sig.entry_id, "bare-kill", "", True, None, (), spec), kill))
    return out


def truncated_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT,
                   known: set[int] = frozenset()) -> list[Hit]:
    """A pasted message cut short (or a message whose variable tail differs) still names its entry
    when the whole pasted line occurs inside the entry's message text.  Not for an exception that a
    signature already recognised (on its line or its message lines): that paste is not cut short."""
    cands = [e.line for e in parsed.exceptions if e.line.no not in known]
    if not cands:  # a bare message, pasted alone (possibly cut short)
        texts = parsed.texted
        cands = texts if len(texts) <= 3 else []
    out: list[Hit] = []
    haystack: str | None = None
    short = len(cands) <= SHORT_PASTE_LINES and len(parsed.texted) <= SHORT_PASTE_LINES
    for ln in cands[-5:]:
        found = False
        for k, needle in enumerate(_needles(ln.text)):
            eids = index.containing(needle, whole=k > 0)
            name, spec = "truncated-text", int(sum(ch.isalnum() for ch in needle[:200]) * cfg.truncated_weight)
            if not eids and short and not found and not (k > 0 and _builtin_exception(ln.text)):
                # a title fragment or one quoted phrase; not the message of Python's own exception alone
                # ("ZeroDivisionError: division by zero" is a user's bug, whatever prose says "division by zero")
                eid = index.containing_rare(needle)
                eids = [eid] if eid else []
                name, spec = "short-paste", int(-math.log(1 - cfg.short_paste_confidence) * cfg.spec_scale) + 1
            for eid in eids:
                if eid in already:
                    continue
                contexts = index.contexts.get(eid, [])
                if contexts and all(contexts):  # every wording needs context words: so does a cut paste of one
                    if haystack is None:
                        haystack = "\n".join(x.text for x in parsed.lines).lower()
                    if not any(c in haystack for ctx in contexts for c in ctx):
                        continue
                out.append(Hit(SigSpec(eid, name, "", True, None, (), spec), ln))
                already.add(eid)
                found = True
    return out


SHORT_PASTE_LINES = 2  # a paste this short (a title, one quoted line) may name its entry by a fragment


_BUILTIN_EXCEPTIONS = frozenset(n for n in dir(builtins) if n.endswith(("Error", "Exception")))


def _builtin_exception(text: str) -> bool:
    """An exception line of one of Python's own exception classes (ValueError, ZeroDivisionError, ...)."""
    exc = exception_line(text)
    return bool(exc) and exc[0].rsplit(".", 1)[-1] in _BUILTIN_EXCEPTIONS


def _needles(text: str) -> list[str]:
    """A line, and, for an exception line, its message alone: the wrapping type ("DistNetworkError: ")
    may differ from the one the entry's text shows."""
    exc = exception_line(text)
    return [text, exc[1]] if exc and exc[1] and exc[1] != text else [text]


def split_unknown_root(root: Line | None, root_is_cause: bool,
                       confident: list[EntryMatch]) -> tuple[list[EntryMatch], list[Related]]:
    """When the first failure is an error no entry knows (user code, a repo's own bug), entries of
    symptoms (timeouts on the other ranks) do not answer the paste: they move to `related`, marked as
    consequences of that unknown error.  Launcher reports (wrappers) stay, last: they say where to look."""
    if root is None or not root_is_cause:
        return confident, []
    if any(h.line.no == root.no or h.line.block == root.no for m in confident for h in m.hits):
        return confident, []  # the root is known
    keep = [m for m in confident if m.role != "symptom"]  # wrappers stay: they say how to read such a log
    moved = [Related(m.entry_id, m.strength, Reason("consequence_of_unknown_root"))
             for m in confident if m.role == "symptom"]
    return keep, moved


def fold_consequences(root: Line | None, root_is_cause: bool, confident: list[EntryMatch]) -> list[EntryMatch]:
    """When a cause match explains the first failure, the matches it explains are not peers: a symptom
    on another line (a timeout or closed connection on the other ranks), a launcher's report (a wrapper:
    torchrun's ChildFailedError) and any entry the KB says it leads to go under it as consequences.
    Only one match may claim the first failure: a later match of the same line is an alternative to it."""
    if root is None:
        return confident
    # the match that explains the first failure: a cause; or, when the first failure is itself a symptom
    # (a timeout with no earlier error in the log), that symptom's match, which then takes only wrappers
    cause = next((m for m in confident if m.on_root and (m.role == "cause" or not root_is_cause)), None)
    if cause is None or cause.applies is False:  # the versions given rule it out: it explains nothing here
        return confident
    keep: list[EntryMatch] = []
    for m in confident:
        if m is cause:
            keep.append(m)
            continue
        on_line = any(h.line.no == root.no or h.line.block == root.no for h in m.hits)
        if m.role == "wrapper":  # a launcher's report of this failure, whatever the KB relates
            code = "wrapper_of_cause"
        elif root_is_cause and cause.entry_id in m.led_from:
            code = "led_from_cause"
        elif root_is_cause and m.role == "symptom" and not on_line:
            code = "symptom_of_cause"
        elif m.confidence < 0.5:
            # a weaker match: seen after the first failure, or a weaker reading of its line; not an answer
            if on_line or m.on_root:
                code = "alternative_reading"
            elif all(h.line.no < root.no for h in m.hits):
                code = "before_first_failure"  # e.g. a warning printed earlier, which the KB does not relate to it
            else:
                code = "after_first_failure"
        else:
            if m.on_root:
                m.alternative_to = cause.entry_id
                m.why = [Reason("alternative_reading", {"entry": cause.entry_id})
                         if r.code in ("explains_root_cause", "first_failure_seen") else r for r in m.why]
            keep.append(m)
            continue
        cause.consequences.append(Consequence(m, Reason(code, {"entry": cause.entry_id})))
    return keep


def split_interrupted(root: Line | None, confident: list[EntryMatch]) -> tuple[list[EntryMatch], list[Related]]:
    """The user stopped the run (the first failure is a KeyboardInterrupt): symptoms of stopping it (a
    closed connection on another rank, the launcher's SIGINT report) are no answer; they go to `related`."""
    keep, moved = [], []
    for m in confident:
        if m.role in ("symptom", "wrapper") and all(caused_by_interrupt(h.line, root) for h in m.hits):
            moved.append(Related(m.entry_id, m.strength, Reason("consequence_of_interrupt")))
        else:
            keep.append(m)
    return keep, moved


def group_by_entry(index: MatchIndex, hits: list[Hit]) -> dict[str, EntryMatch]:
    by_entry: dict[str, EntryMatch] = {}
    for h in hits:
        eid = h.sig.entry_id
        if eid not in by_entry:
            by_entry[eid] = EntryMatch(eid, role=index.roles.get(eid, "cause"))
        by_entry[eid].hits.append(h)
    return by_entry


def _explains(m: EntryMatch, root: Line) -> bool:
    """The entry matched the root line (or its message block), or, for a cause, a line of the root's rank."""
    if any(h.line.no == root.no or h.line.block == root.no for h in m.hits):
        return True
    # a warning on the root's rank does not explain the exception that ended it (roots.py: leads_to does)
    return m.role == "cause" and root.rank is not None and any(
        h.line.rank == root.rank and not is_warning(h.line) for h in m.hits)


def score_entry(index: MatchIndex, m: EntryMatch, root: Line | None, root_is_cause: bool,
                versions: dict[str, str], cfg: RankConfig = DEFAULT) -> None:
    best = m.best
    conf = confidence_for(best.sig.specificity, cfg)
    names = {h.sig.name for h in m.hits}
    conf = min(cfg.confidence_cap, conf + cfg.extra_signature_confidence * (len(names) - 1))
    m.why.append(Reason("signature_matched", {"sig": best.sig.name, "line": best.line.no, "rank": best.line.rank}))
    if best.sig.name == "bare-kill":
        m.why.append(Reason("host_oom_kill"))
    if (best.sig.name == EXIT_SIGNAL or m.role == "wrapper") and (r := exit_reason(best.sig.name, best.line.text)):
        m.why.append(r)  # the child's exit code is a signal (exits.py)
    score = conf
    if root is not None and _explains(m, root):
        m.on_root = True
        score += cfg.root_bonus
        m.why.append(Reason("explains_root_cause" if root_is_cause else "first_failure_seen"))
    if m.role == "cause":
        score += cfg.cause_bonus
    elif m.role == "wrapper":
        score -= cfg.wrapper_penalty
        m.why.append(Reason("reports_child_failure"))
    elif m.role == "symptom":
        m.why.append(Reason("consequence_elsewhere"))
    if best.line.kind in ("exception", "what"):
        score += cfg.exception_line_bonus
    if best.sig.context:  # the hit required context words, and the log has them
        score += cfg.context_bonus
    m.applies, m.env_reasons = applicability(index.entry(m.entry_id), versions)
    if m.applies is False:
        score -= cfg.env_mismatch_penalty
        conf *= cfg.env_mismatch_confidence
        m.why.append(Reason("env_outside_range", {"reasons": list(m.env_reasons)}))
    elif m.applies:
        m.why.append(Reason("env_in_range"))
    m.score = round(score, 4)
    m.strength = m.confidence = round(conf, 3)


def apply_relations(index: MatchIndex, by_entry: dict[str, EntryMatch]) -> None:
    """The KB's ``leads_to`` between two matched entries: the consequence is explained by the other,
    and never outranks it."""
    for m in by_entry.values():
        for target in index.entry(m.entry_id).leads_to:
            t = by_entry.get(target)
            if t is None or t is m:
                continue
            m.leads_to.append(target)
            t.led_from.append(m.entry_id)
            m.why.append(Reason("leads_to", {"entry": target}))
            t.why.append(Reason("led_from", {"entry": m.entry_id}))
    for m in by_entry.values():  # a cause ranks just above what it leads to
        for target in m.leads_to:
            t = by_entry[target]
            if t.score >= m.score:
                m.score = round(t.score + 0.001, 4)


def calibration_features(m: EntryMatch, position: int, root_is_cause: bool) -> list[float]:
    """What the calibrated confidence is fitted on (bench/calibrate.py), in the order of ``RankConfig.calibration``."""
    s = min(max(m.strength, 0.01), 0.995)
    return [1.0, math.log(s / (1 - s)), float(m.on_root), float(m.on_root and root_is_cause), float(position == 0),
            float(m.role == "symptom"), float(m.role == "wrapper"), float(m.applies is False),
            float(m.best.sig.name in LOW_EVIDENCE)]


def calibrate(ranked: list[EntryMatch], root_is_cause: bool, cfg: RankConfig = DEFAULT) -> None:
    """Confidence as the probability that the entry is the answer for this paste (fitted on held-out logs)."""
    if not cfg.calibration:
        return
    for pos, m in enumerate(ranked):
        z = sum(w * x for w, x in zip(cfg.calibration, calibration_features(m, pos, root_is_cause)))
        m.confidence = round(1 / (1 + math.exp(-max(-30.0, min(30.0, z)))), 3)
        if m.best.sig.name == "short-paste":  # no held-out set has such pastes yet: never above its prior
            m.confidence = min(m.confidence, cfg.short_paste_confidence)


def rank_entries(by_entry: dict[str, EntryMatch]) -> list[EntryMatch]:
    # entries the environment rules out go after every entry it does not rule out
    return sorted(by_entry.values(), key=lambda m: (m.applies is False, -m.score, m.entry_id))


def related_entries(index: MatchIndex, parsed: ParsedLog, ranked: list[EntryMatch], weak: list[EntryMatch],
                    findings, confident: list[EntryMatch], cfg: RankConfig = DEFAULT) -> list[Related]:
    related = [Related(m.entry_id, m.strength, Reason("weak_signature")) for m in weak]
    have = {m.entry_id for m in ranked}
    for f in findings:
        extra = [Related(eid, None, Reason("finding", {"kind": f.kind}))
                 for eid in f.entries if eid in index.roles and eid not in have]
        have.update(r.entry_id for r in extra)
        related = extra + related
    if not confident:
        err_lines = [x.line.text for x in parsed.exceptions[-20:]] or [ln.text for ln in parsed.lines[-20:]]
        words = "\n".join(t[:SIMILAR_LINE_CHARS] for t in err_lines)  # words enough; masking is per character
        for eid, s in index.similar(words, limit=3, exclude={m.entry_id for m in weak}):
            if s >= cfg.similar_cutoff:
                related.append(Related(eid, s, Reason("similar_words")))
    return related


def root_rank(root: Line, known: str | None, ranked: list[EntryMatch], parsed: ParsedLog) -> int | None:
    """The rank of the root line, from the first place that names it."""
    if root.rank is not None:
        return root.rank
    rank = rank_in_text(root.text)  # "[Rank 3] Watchdog caught ..." (torch <= 2.1)
    if rank is None and known:  # the same error reported with a rank elsewhere (a WARN line, then the exception)
        m = next(m for m in ranked if m.entry_id == known)
        rank = next((h.line.rank for h in sorted(m.hits, key=lambda h: h.line.no) if h.line.rank is not None), None)
    if rank is None:  # torchrun's summary names the first failed rank
        rank = next((f.rank for f in parsed.failed_ranks if f.first and f.rank is not None), None)
    if rank is None:  # torchrun: "failed (exitcode: 1) local_rank: 1 (pid: ...)"
        for ln in parsed.lines:
            if "local_rank:" in ln.text and (lm := _LAUNCHER_FAILED.search(ln.text)):
                return int(lm.group(1))
    if rank is None and not parsed.ranks:  # one process's own log: Lightning names its rank at start-up
        own = {int(m.group(1)) for ln in parsed.lines[:400] if "GLOBAL_RANK:" in ln.text
               for m in [_OWN_RANK.search(ln.text)] if m}
        if len(own) == 1:
            rank = own.pop()
    return rank


def describe_root(root: Line | None, root_is_cause: bool, ranked: list[EntryMatch], parsed: ParsedLog,
                  versions: dict[str, str]) -> RootCause | None:
    if root is None:
        return None
    known = next((m.entry_id for m in ranked if any(h.line.no == root.no or h.line.block == root.no for h in m.hits)),
                 None)
    exc: PyException | None = next((e for e in parsed.exceptions if e.line.no == root.no), None)
    return RootCause(
        line_no=root.no,
        line=root.raw.strip(),
        rank=root_rank(root, known, ranked, parsed),
        entry=known,
        is_cause=root_is_cause,
        exception=exc.type if exc is not None and exc.type != "C++ exception" else None,
        origin=origin_of(exc, versions) if exc is not None else None,
    )


def summarise(parsed: ParsedLog) -> LogSummary:
    dropped = dict(getattr(parsed, "dropped", {}) or {})
    d = current_budget()
    if d is not None and d.cut:  # a step stopped early: the CPU budget ran out (or the client left)
        dropped["time_budget_ms"] = int(d.limit_s * 1000) if d.limit_s != float("inf") else 0
        dropped.update({f"stopped_{step}": 1 for step in sorted(d.cut)})
    return LogSummary(
        lines=len(parsed.lines),
        ranks=list(parsed.ranks),
        exceptions=len(parsed.exceptions),
        truncated=parsed.truncated,
        # the record's parsed Line stays inside the matcher: the summary is plain data (it is served as JSON)
        failed_ranks=[{k: v for k, v in f.__dict__.items() if k != "line"} for f in parsed.failed_ranks],
        dropped=dropped,
        encoding=getattr(parsed, "encoding", None),
    )


# ----------------------------------------------------------------------------- the pipeline


def match(index: MatchIndex, text: str, environment: Any = None, cfg: RankConfig = DEFAULT) -> MatchResult:
    parsed = parse_log(text)
    hits = find_hits(index, parsed, cfg)
    benign_ids = index.benign_ids
    root = choose_root(parsed, hits, lambda eid: index.roles.get(eid, "cause"),
                       lambda eid: index.entry(eid).leads_to)
    # a rank that only left an exit code in torchrun's summary: no error text to call unknown, so the
    # others' symptoms stay the answers (they say to look at that rank)
    root_is_cause = (root is not None and is_cause(root, hits, lambda eid: index.roles.get(eid, "cause"))
                     and not any(f.line is root for f in parsed.failed_ranks))
    versions = dict(parsed.versions)
    versions.update(parse_environment(environment))

    by_entry = group_by_entry(index, hits)
    benign = [BenignLine(eid, h.line.no, h.line.raw.strip(), h.line.rank)
              for eid in sorted([e for e in by_entry if e in benign_ids]) for h in sorted(by_entry.pop(eid).hits, key=lambda h: h.line.no)]
    for m in by_entry.values():
        score_entry(index, m, root, root_is_cause, versions, cfg)
    apply_relations(index, by_entry)
    ranked = rank_entries(by_entry)
    confident = [m for m in ranked if m.strength >= cfg.confident]
    weak = [m for m in ranked if m.strength < cfg.confident]
    calibrate(confident, root_is_cause, cfg)
    confident, after = split_unknown_root(root, root_is_cause, confident)
    confident = fold_consequences(root, root_is_cause, confident)
    for m in confident:  # which of each entry's fixes fit this log (app/matching/conditions.py)
        m.fits = fits(index.entry(m.entry_id), parsed, m)
    findings = detect(parsed)
    if (stop := interrupted(parsed, root, root_is_cause)) is not None:  # the user stopped it (Ctrl-C)
        confident, by_stop = split_interrupted(root, confident)
        after += by_stop
        findings.insert(0, stop)
    res = MatchResult(
        config=cfg.id,
        matches=confident,
        related=after + related_entries(index, parsed, ranked, weak, findings, confident, cfg),
        root_cause=describe_root(root, root_is_cause, ranked, parsed, versions),
        findings=findings,
        environment=versions,
        log=summarise(parsed),
        benign=benign,
    )
    res.verdict = verdict_of(res, index.entry, [ln.text for ln in parsed.lines[-8:]])  # who acts; retry?
    return res


__all__ = ["match", "confidence_for", "find_hits", "truncated_hits", "score_entry", "apply_relations", "calibrate"]
