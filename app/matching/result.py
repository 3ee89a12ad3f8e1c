"""The matcher's answer, with no language in it: entry ids, numbers, line references and
reasons as codes with parameters.  Each edge (the API, the pages, the CLI) renders it in its
reader's language (`app/render/match.py`, `app/i18n/reasons.py`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultline.matching.index import Hit


@dataclass(frozen=True)
class Reason:
    """Why an entry ranks where it does, as data: ``code`` names the message, ``params`` fill it in."""
    code: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """Something the log shows about the run as a whole (e.g. ranks stuck in different collectives)."""
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    entries: tuple[str, ...] = ()  # entries that explain this finding, most likely first


@dataclass
class EntryMatch:
    entry_id: str
    role: str = "cause"
    hits: list[Hit] = field(default_factory=list)
    on_root: bool = False
    applies: bool | None = None
    env_reasons: list[str] = field(default_factory=list)
    score: float = 0.0
    confidence: float = 0.0  # calibrated: how likely this entry is the answer for the paste
    strength: float = 0.0  # how specific the best matching signature is (decides matches vs related)
    why: list[Reason] = field(default_factory=list)
    leads_to: list[str] = field(default_factory=list)  # matched entries this one leads to (from the KB)
    led_from: list[str] = field(default_factory=list)  # matched entries that lead to this one
    # entries this match explains (a timeout on another rank, the launcher's report): shown under it, not as peers
    consequences: list["Consequence"] = field(default_factory=list)
    alternative_to: str | None = None  # another match explains the same first failure better: this one does not claim it
    # per workaround of the entry: its `when` holds for this log (True), fails (False) or it has none (None)
    fits: tuple = ()

    @property
    def best(self) -> Hit:
        return max(self.hits, key=lambda h: (h.sig.specificity, h.line.kind == "exception", -h.line.no))


@dataclass(frozen=True)
class Consequence:
    """A matched entry that the cause match explains: ``match`` is its own scoring, ``reason`` says why
    it is a consequence (``symptom_of_cause``, ``wrapper_of_cause``, ``led_from_cause``)."""
    match: EntryMatch
    reason: Reason


@dataclass(frozen=True)
class Origin:
    """Where an exception was raised: the innermost frame, and whether that is the user's code or a package."""
    file: str
    line: int
    function: str
    package: str | None  # the distribution under site-/dist-packages, None for the user's own code
    version: str | None = None  # the package's version, when the environment gives it
    in_user_code: bool = True  # the innermost frame is outside packages and the standard library
    user_file: str | None = None  # the innermost frame in the user's own code (where to look first)
    user_line: int | None = None


@dataclass
class RootCause:
    line_no: int
    line: str
    rank: int | None
    entry: str | None  # the entry that explains it, None when no entry knows this error
    is_cause: bool  # False: only symptoms were found; this is the first of them
    exception: str | None = None  # the exception type, when the line is a Python exception
    origin: Origin | None = None


@dataclass(frozen=True)
class Verdict:
    """Who must act on the root cause (``blame``) and whether rerunning as is can help (``retry``).

    ``source``: "entry" (the root cause's entry says it) or "derived" (no entry knows the error; worked
    out from ``origin``: exception, user_code, package, stdlib, signal or hardware)."""
    blame: str  # app/entry.py Blame
    retry: str  # app/entry.py Retry: transient | after_change | never_as_is
    source: str
    confidence: float
    entry: str | None = None
    origin: str | None = None
    package: str | None = None  # origin "package": the package it was raised in
    signal: str | None = None  # origin "signal": the signal's name (SIGKILL)
    blame_reason: Reason | None = None
    retry_reason: Reason | None = None


@dataclass(frozen=True)
class Related:
    entry_id: str
    score: float | None
    reason: Reason


@dataclass(frozen=True)
class BenignLine:
    """A line that people mistake for the cause (a known warning); never the root cause."""
    entry_id: str
    line_no: int
    line: str
    rank: int | None


@dataclass
class LogSummary:
    lines: int
    ranks: list[int]
    exceptions: int
    truncated: bool
    failed_ranks: list[dict[str, Any]]
    dropped: dict[str, int] = field(default_factory=dict)  # what was cut: lines / long-line characters
    encoding: str | None = None


@dataclass
class MatchResult:
    config: str  # the RankConfig id that scored this result
    matches: list[EntryMatch]  # confident matches, best first (benign entries never appear here)
    related: list[Related]
    root_cause: RootCause | None
    findings: list[Finding]
    environment: dict[str, str]
    log: LogSummary
    benign: list[BenignLine] = field(default_factory=list)
    verdict: Verdict | None = None  # on the root cause (app/matching/verdict.py)
