"""What the MCP tools return: short, structured views of the API's answers (each tool's output
schema), sized for an agent's context: the first failure, the cause in full with its best few fixes,
what it explains (consequences) as ids and titles, ids to ask for more.

Codes stay codes in every language (``rate_basis``, ``role``, ``blame``, ``retry``, a finding's
``kind``); only human text (titles, actions, reasons, ``*_text``) is translated.  Rates are numbers (0-1)."""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, Field


def _text(x: Any) -> str:
    if isinstance(x, dict):
        return str(x.get("text") or x.get("message") or x.get("code") or x.get("kind") or "")
    return str(x)


RateBasis = Literal["estimated", "measured", "reports"]
# below this confidence a match is listed by id and title only: its fixes are for another cause
CONFIDENT = 0.5


def _basis(ev: Any) -> Optional[str]:
    """The rate's basis as its stable code (never the translated label)."""
    b = ev.get("basis") if isinstance(ev, dict) else None
    return b if b in ("estimated", "measured", "reports") else None


def _reports(ev: Any) -> int:
    return int(ev.get("reports") or 0) if isinstance(ev, dict) else 0


class Fix(BaseModel):
    action: str
    command: Optional[str] = None
    success_rate: float = Field(description="0-1")
    rate_basis: Optional[RateBasis] = Field(None, description="estimated (a curator's estimate), measured, or reports "
                                                              "(from outcome reports; see `reports`)")
    reports: int = Field(0, description="how many outcome reports the rate counts")
    condition: Optional[str] = Field(None, description="when this fix is the right one")
    applies: Optional[bool] = Field(None, description="False when the given versions rule this fix out")
    fits_log: Optional[bool] = Field(None, description="True: the log shows this fix's condition holds (such fixes "
                                                       "come first); False: the log shows it does not")
    index: int = Field(description="1-based, as report_outcome takes it")


class DeadEnd(BaseModel):
    action: str
    why_fails: Optional[str] = None
    fail_rate: float = Field(description="0-1")
    index: int


class LogText(BaseModel):
    """One log of a job (a rank's stderr, an error file's JSON, a host's log), for match_log's ``files``."""
    name: str = Field(description="the file's path, e.g. 'attempt_0/2/stderr.log' or 'rank3.log': "
                                  "the rank or host is read from it")
    text: str


class FirstFailure(BaseModel):
    line: str
    line_no: Optional[int] = None
    file: Optional[str] = Field(None, description="with several files: the file of the first failure")
    file_line: Optional[int] = Field(None, description="its line in that file")
    rank: Optional[int] = Field(None, description="the process/rank that failed first, when the log says")
    entry: Optional[str] = Field(None, description="the entry that explains it; null when no entry knows it")
    note: Optional[str] = None


class Ref(BaseModel):
    """An entry by id and title (get_entry gives the rest)."""
    id: str
    title: str


class MatchHit(BaseModel):
    id: str
    title: str
    confidence: float = Field(description="0-1")
    role: Optional[str] = Field(None, description="cause | symptom | wrapper (a stable code)")
    explains_first_failure: bool = Field(False, description="true: this entry explains the first failure of the log")
    why: list[str]
    root_cause: Optional[str] = Field(None, description="the cause, in full; null for a match below 50% confidence")
    fixes: list[Fix] = Field(description="the best few fixes; empty for a match below 50% confidence (get_entry "
                                         "has them)")
    avoid: list[DeadEnd] = Field(description="dead ends: what not to try")
    consequences: list[Ref] = Field(default_factory=list, description="errors in the log that this one explains "
                                                                      "(a timeout on another rank, the launcher's "
                                                                      "report): not separate problems")
    alternative_to: Optional[str] = Field(None, description="another match explains the first failure better")
    url: str


class Related(BaseModel):
    id: str
    title: Optional[str] = None
    why: Optional[str] = None


class Finding(BaseModel):
    kind: str = Field(description="a stable code, e.g. different_step, interrupted, first_failing_rank")
    text: str = Field(description="the finding in the asked language")


class Verdict(BaseModel):
    """On the first failure: who must act and whether a retry as is can help (kinds are stable codes)."""
    blame: str = Field(description="user_code | configuration | library_version | installation | environment | "
                                   "hardware | network | scheduler")
    retry: str = Field(description="transient (retry as is) | after_change (retry only after the fix) | never_as_is")
    blame_text: Optional[str] = Field(None, description="who must act, and why, in the asked language")
    retry_text: Optional[str] = Field(None, description="whether to retry, and why, in the asked language")
    source: str = Field(description="entry: the entry says it; derived: no entry does, worked out from `origin`")
    origin: Optional[str] = None
    confidence: float


def _said(part: dict[str, Any]) -> Optional[str]:
    label, reason = part.get("label"), part.get("reason")
    return f"{label}: {reason}" if label and reason else (label or reason)


def verdict_out(v: Optional[dict[str, Any]]) -> Optional[Verdict]:
    if not v:
        return None
    return Verdict(blame=v["blame"]["kind"], retry=v["retry"]["kind"], blame_text=_said(v["blame"]),
                   retry_text=_said(v["retry"]), source=v.get("source") or "entry", origin=v.get("origin"),
                   confidence=v.get("confidence") or 0.0)


class MatchOut(BaseModel):
    """The known errors in a log, best first; empty ``matches`` means the KB does not know it."""
    first_failure: Optional[FirstFailure] = None
    verdict: Optional[Verdict] = None
    matches: list[MatchHit]
    related: list[Related] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)


def fixes(items: list[dict[str, Any]], n: int) -> list[Fix]:
    return [Fix(action=w.get("action") or "", command=w.get("command"), success_rate=w.get("success_rate") or 0.0,
                rate_basis=_basis(w.get("success_rate_evidence")), reports=_reports(w.get("success_rate_evidence")),
                condition=w.get("condition"), applies=w.get("applies"), fits_log=w.get("fits_log"),
                index=w.get("index") or i)
            for i, w in enumerate(items, 1)][:n]


def dead_ends(items: list[dict[str, Any]], n: int) -> list[DeadEnd]:
    return [DeadEnd(action=d.get("action") or "", why_fails=d.get("why_fails"), fail_rate=d.get("fail_rate") or 0.0,
                    index=d.get("index") or i)
            for i, d in enumerate(items, 1)][:n]


def _hit(m: dict[str, Any], n_fixes: int) -> MatchHit:
    """A match: in full (the cause, its best fixes, the dead ends) when it is confident; else its id, title
    and why, so that a symptom's fixes are never offered as if they were the cause's."""
    full = (m.get("confidence") or 0.0) >= CONFIDENT and not m.get("alternative_to")
    return MatchHit(id=m["id"], title=m.get("title") or m["id"], confidence=m.get("confidence") or 0.0,
                    role=m.get("role"), explains_first_failure=bool(m.get("root_cause_match")),
                    why=[_text(w) for w in m.get("why") or []],
                    root_cause=m.get("root_cause") if full else None,
                    fixes=fixes(m.get("workarounds") or [], n_fixes) if full else [],
                    avoid=dead_ends(m.get("dead_ends") or [], 2) if full else [],
                    consequences=[Ref(id=c["id"], title=c.get("title") or c["id"])
                                  for c in m.get("consequences") or [] if isinstance(c, dict) and c.get("id")],
                    alternative_to=m.get("alternative_to"), url=m.get("url") or f"/errors/{m['id']}")


def match_out(res: dict[str, Any], n_fixes: int = 3) -> MatchOut:
    rc = res.get("root_cause")
    first = None
    if rc and rc.get("line"):
        first = FirstFailure(line=rc["line"][:500], line_no=rc.get("line_no"), rank=rc.get("rank"),
                             entry=rc.get("entry"), note=rc.get("text"), file=rc.get("file"),
                             file_line=rc.get("file_line"))
    matches = res.get("matches") or []
    # an entry another match explains is listed under it (consequences), never again as a match of its own
    explained = {c.get("id") for m in matches for c in m.get("consequences") or [] if isinstance(c, dict)}
    return MatchOut(
        first_failure=first,
        verdict=verdict_out(res.get("verdict")),
        matches=[_hit(m, n_fixes) for m in matches if m["id"] not in explained],
        related=[Related(id=r["id"], title=r.get("title"), why=_text(r.get("why") or "")) for r in res.get("related") or []],
        findings=[Finding(kind=str(f.get("kind") or ""), text=_text(f)) if isinstance(f, dict)
                  else Finding(kind="", text=str(f)) for f in res.get("findings") or []],
    )


class EntryOut(BaseModel):
    id: str
    title: str
    error_text: Optional[str] = None
    domain: Optional[str] = None
    tags: list[str] = Field(default_factory=list)
    root_cause: Optional[str] = None
    fix_rate: Optional[float] = None
    rates: Optional[str] = Field(None, description="'estimated' or 'measured'")
    fixes: list[Fix]
    avoid: list[DeadEnd]
    versions: list[dict[str, Any]] = Field(default_factory=list)
    docs: list[str] = Field(default_factory=list, description="official documentation URLs")
    related: list[str] = Field(default_factory=list)
    guides: list[str] = Field(default_factory=list)
    blame: Optional[str] = Field(None, description="who must act on this error (kind: reason)")
    retry: Optional[str] = Field(None, description="whether a retry as is can help (kind: reason)")
    url: str


def _kind_said(part: Optional[dict[str, Any]]) -> Optional[str]:
    return f"{part['kind']}: {_said(part)}" if part else None


def entry_out(e: dict[str, Any]) -> EntryOut:
    return EntryOut(
        id=e["id"], title=e.get("title") or e["id"], error_text=e.get("error_text"), domain=e.get("domain"),
        tags=e.get("tags") or [], root_cause=e.get("root_cause"), fix_rate=e.get("fix_rate"),
        rates=(e.get("provenance") or {}).get("rates"),
        fixes=fixes(e.get("workarounds") or [], 50), avoid=dead_ends(e.get("dead_ends") or [], 50),
        versions=[{k: v.get(k) for k in ("package", "range", "status") if k in v} for v in e.get("versions") or []],
        docs=[d.get("url") for d in e.get("docs") or [] if isinstance(d, dict) and d.get("url")],
        related=[r if isinstance(r, str) else str(r.get("id", r)) for r in e.get("related") or []],
        guides=[g.get("id") if isinstance(g, dict) else str(g) for g in e.get("guides") or []],
        blame=_kind_said(e.get("blame")), retry=_kind_said(e.get("retry")),
        url=e.get("url") or f"/errors/{e['id']}",
    )


class EntrySummary(BaseModel):
    id: str
    title: str
    domain: Optional[str] = None
    tags: list[str] = Field(default_factory=list)
    fix_rate: Optional[float] = None


class SearchOut(BaseModel):
    total: int
    items: list[EntrySummary]


class GuideSummary(BaseModel):
    id: str
    title: str
    summary: Optional[str] = None


class GuidesOut(BaseModel):
    items: list[GuideSummary]


class GuideSection(BaseModel):
    title: str
    body: Optional[str] = None
    steps: list[str] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)


class GuideOut(BaseModel):
    id: str
    title: str
    summary: Optional[str] = None
    sections: list[GuideSection]
    entries: list[str] = Field(default_factory=list)
    url: str


def guide_out(g: dict[str, Any]) -> GuideOut:
    def cmds(c: Any) -> list[str]:
        if isinstance(c, str):
            return [c]
        return [x if isinstance(x, str) else str(x.get("command") or x) for x in c or []]

    return GuideOut(id=g["id"], title=g.get("title") or g["id"], summary=g.get("summary"),
                    sections=[GuideSection(title=s.get("title") or "", body=s.get("body"),
                                           steps=[x for x in s.get("steps") or [] if x], commands=cmds(s.get("commands")))
                              for s in g.get("sections") or []],
                    entries=g.get("entries") or [], url=g.get("url") or f"/guides/{g['id']}")


class Rate(BaseModel):
    value: float = Field(description="0-1")
    basis: RateBasis = Field(description="estimated, measured, or reports (from outcome reports)")
    reports: int = Field(description="how many outcome reports it counts")
    interval: list[float] = Field(description="[low, high]: the 90% credible interval")


class OutcomeOut(BaseModel):
    id: int
    entry: str
    worked: bool
    repeat: bool = Field(description="true when the same report was already counted in the last 24 h")
    rate: Optional[Rate] = Field(None, description="the tried fix's (or dead end's) rate now")
    fix_rate: Optional[Rate] = Field(None, description="the entry's fix rate now")


def outcome_out(o: dict[str, Any]) -> OutcomeOut:
    def rate(r: Any) -> Optional[Rate]:
        if not isinstance(r, dict) or _basis(r) is None:
            return None
        return Rate(value=r.get("value") or 0.0, basis=_basis(r), reports=_reports(r),
                    interval=list(r.get("interval") or [0.0, 1.0]))

    return OutcomeOut(id=o["id"], entry=o["entry"], worked=o["worked"], repeat=bool(o.get("repeat")),
                      rate=rate(o.get("rate")), fix_rate=rate(o.get("fix_rate")))
