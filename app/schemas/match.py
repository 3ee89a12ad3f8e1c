"""The response body of POST /match (rendered by app/render/match.py from the matcher's typed result)."""
from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    # sub-objects shared with other routes (workarounds, dead ends) may carry more fields than listed here
    model_config = ConfigDict(extra="allow")


class ReasonOut(BaseModel):
    code: str = Field(description="what the reason says, as a stable code (e.g. 'explains_root_cause')")
    params: dict[str, Any] = Field(default_factory=dict, description="the values the message names")
    text: str = Field(description="the reason in the response's language")


class RelatedReasonOut(BaseModel):
    code: str
    params: dict[str, Any] = Field(default_factory=dict)


class FilePlace(BaseModel):
    """Where a line of a set of files (a multipart /match) came from; absent for a single paste."""
    file: Optional[str] = Field(None, description="with several files: the file the line is in")
    file_line: Optional[int] = Field(None, description="its line number in that file")
    host: Optional[str] = Field(None, description="the host the file names, when it does")
    file_part: Optional[str] = Field(None, description="the part of the file (e.g. a JSON field) file_line counts in")
    file_time: Optional[str] = Field(None, description="the file's timestamp, when it has one")


class MatchedLine(FilePlace):
    line: str
    line_no: int
    rank: Optional[int] = None
    signature: str


class RateEvidenceOut(_Open):
    """Where a rate comes from: the curated estimate, a measurement, or outcome reports (a Beta posterior)."""
    value: float = Field(description="the rate (0-1): the estimate, or the posterior mean once reports exist")
    estimate: float = Field(description="the curated rate the KB gives (the prior)")
    interval: list[float] = Field(description="[low, high]: the 90% credible interval")
    reports: int = Field(description="how many outcome reports the rate counts")
    successes: int = Field(description="of them, how many went the rate's way")
    basis: Literal["estimated", "measured", "reports"] = Field(
        description="a stable code: estimated (a curator's estimate), measured, reports (from outcome reports)")
    label: str = Field(description="the basis in words, in the response's language (e.g. 'estimated', 'from 3 reports')")
    detail: str = Field(description="the rate and its basis in one phrase, in the response's language")


class LogConditionOut(BaseModel):
    pattern: Optional[str] = Field(None, description="RE2: holds when a line of the log matches it")
    some_ranks_only: Optional[bool] = Field(
        None, description="true: holds when only some ranks of a multi-rank log raised the error; false: when all did")


class WorkaroundOut(_Open):
    id: str = Field(description="a stable id (from the English action): report_outcome takes it, as it takes `index`")
    index: Optional[int] = Field(None, description="the 1-based position in the entry, as report_outcome takes it")
    action: str
    command: Optional[str] = None
    success_rate: float
    success_rate_evidence: Optional[RateEvidenceOut] = Field(
        None, description="where success_rate comes from (estimated, measured, or outcome reports)")
    condition: Optional[str] = Field(None, description="when this fix is the right one, in the response's language")
    tradeoff: Optional[str] = Field(None, description="what it costs, in the response's language")
    applies_to: list[str] = Field(default_factory=list, description="version requirements, e.g. 'torch>=2.2'")
    applies: Optional[bool] = Field(None, description="false: the given versions rule this fix out; null: unknown")
    when: Optional[LogConditionOut] = Field(
        None, description="the condition the matcher checks against the log, when the fix has one")
    fits_log: Optional[bool] = Field(
        None, description="in a /match answer: true, this log shows the fix's condition holds (it comes first); "
        "false, the log shows it does not (it comes last); null, no condition or the log does not tell")
    sources: list[str] = Field(default_factory=list, description="public threads or docs behind this fix")


class DeadEndOut(_Open):
    id: str = Field(description="a stable id (from the English action): report_outcome takes it as `dead_end`")
    index: Optional[int] = Field(None, description="the 1-based position in the entry, as report_outcome takes it")
    action: str
    command: Optional[str] = None
    why_fails: Optional[str] = Field(None, description="why it does not help, in the response's language")
    fail_rate: float
    fail_rate_evidence: Optional[RateEvidenceOut] = Field(
        None, description="where fail_rate comes from (estimated, measured, or outcome reports)")
    sources: list[str] = Field(default_factory=list)


class VersionOut(BaseModel):
    package: str
    range: str
    status: str = Field(description="e.g. affected, fixed, message_changed")


class GuideRef(BaseModel):
    id: str
    url: str


class ConsequenceOut(BaseModel):
    id: str
    title: str
    confidence: float = Field(description="the consequence's own confidence, for reference; it is not an answer")
    role: str = Field(description="cause | symptom | wrapper")
    line_no: int = Field(description="the line where it was seen")
    rank: Optional[int] = None
    reason: ReasonOut = Field(description="why it is a consequence: symptom_of_cause, wrapper_of_cause, led_from_cause, after_first_failure or before_first_failure (a weaker match on another line), alternative_reading (a weaker reading of the same line)")
    url: str


class MatchOut(BaseModel):
    id: str
    title: str
    score: float
    confidence: float = Field(description="how likely this entry is right for the paste (0-1)")
    role: str = Field(description="cause | symptom | wrapper")
    matched: MatchedLine
    root_cause_match: bool = Field(description="the entry explains the first failure of the log")
    applies_to_environment: Optional[bool] = None
    why: list[ReasonOut]
    leads_to: list[str] = Field(default_factory=list, description="matched entries that this one leads to (KB relation)")
    led_from: list[str] = Field(default_factory=list, description="matched entries that lead to this one")
    consequences: list[ConsequenceOut] = Field(
        default_factory=list, description="matched entries this one explains (a timeout on another rank, the "
        "launcher's report): shown under it, never as matches of their own")
    alternative_to: Optional[str] = Field(
        None, description="another match explains the same first failure better: this one does not claim it")
    fix_rate: Optional[float] = None
    fix_rate_evidence: Optional[RateEvidenceOut] = Field(
        None, description="where fix_rate comes from (estimated, measured, or outcome reports)")
    root_cause: Optional[str] = None
    workarounds: list[WorkaroundOut]
    dead_ends: list[DeadEndOut]
    versions: list[VersionOut]
    guides: list[GuideRef]
    url: str


class RelatedOut(BaseModel):
    id: str
    title: Optional[str] = None
    score: Optional[float] = None
    url: str
    why: str
    reason: RelatedReasonOut


class OriginOut(BaseModel):
    file: str
    line: int
    function: str
    package: Optional[str] = Field(None, description="the package under site-/dist-packages; null: your own code")
    version: Optional[str] = None
    in_user_code: bool
    user_file: Optional[str] = Field(None, description="the innermost frame in your own code")
    user_line: Optional[int] = None


class RootCauseOut(FilePlace):
    rank: Optional[int] = None
    line: str
    line_no: int
    entry: Optional[str] = Field(None, description="the entry that explains it; null when no entry knows the error")
    is_cause: bool
    exception: Optional[str] = None
    origin: Optional[OriginOut] = None
    text: Optional[str] = Field(None, description="when no entry knows it: where it was raised, in words")


class VerdictPartOut(BaseModel):
    kind: str
    label: str = Field(description="the kind in the response's language")
    reason: Optional[str] = Field(None, description="why, in the response's language")
    code: Optional[str] = Field(None, description="the reason as a stable code: 'entry' (the entry's own reason) "
                                                  "or a derived reason (e.g. 'raised_in_user_code')")
    params: dict[str, Any] = Field(default_factory=dict)


class BlameOut(VerdictPartOut):
    kind: Literal["user_code", "configuration", "library_version", "installation", "environment", "hardware",
                  "network", "scheduler"] = Field(description="who must act")


class RetryOut(VerdictPartOut):
    kind: Literal["transient", "after_change", "never_as_is"] = Field(
        description="transient: retry as is; after_change: retry only after the fix; never_as_is")


class VerdictOut(BaseModel):
    blame: BlameOut
    retry: RetryOut
    source: Literal["entry", "derived"] = Field(
        description="entry: the root cause's entry says it; derived: no entry knows the error, worked out from `origin`")
    origin: Optional[Literal["exception", "user_code", "package", "stdlib", "signal", "hardware"]] = Field(
        None, description="derived: what it was worked out from")
    entry: Optional[str] = None
    package: Optional[str] = Field(None, description="origin package: the package the error was raised in")
    signal: Optional[str] = Field(None, description="origin signal: the signal that ended the process (e.g. SIGKILL)")
    confidence: float = Field(description="how sure the verdict is (0-1)")


class DesyncRankOut(BaseModel):
    seq: int = Field(description="the collective's sequence number on this rank")
    op: str = Field(description="the collective, e.g. ALLREDUCE")
    numel_in: Optional[int] = None


class StoppedFrameOut(BaseModel):
    """Where one rank was when the run was stopped (its innermost frame in the user's own code)."""
    rank: Optional[int] = None
    file: str
    line: int
    function: str
    code: Optional[str] = Field(None, description="the source line, as the traceback printed it")
    line_no: int = Field(description="the line of the log where the rank's KeyboardInterrupt is")


class StackOut(BaseModel):
    """One rank's main-thread stack from a `py-spy dump` file: its innermost frame."""
    rank: Optional[int] = None
    host: Optional[str] = None
    file: str
    file_line: int
    frame: str
    collective: Optional[str] = None


class FindingOut(_Open):
    """Something the log shows about the run as a whole; the fields after `entries` depend on `kind`."""
    kind: str = Field(description="a stable code: different_step, different_collective (ranks in different "
                                  "collectives), interrupted (the user stopped the run), first_failing_rank, "
                                  "missing_from_collective, stack_outlier (several files)")
    message: str = Field(description="the finding in the response's language")
    entries: list[str] = Field(default_factory=list, description="entries that explain it, most likely first")
    ranks: Optional[dict[str, DesyncRankOut]] = Field(None, description="different_*: each rank's collective")
    rank: Optional[int] = Field(None, description="interrupted, first_failing_rank: the rank")
    line_no: Optional[int] = Field(None, description="interrupted: the line of the first interrupt")
    frames: Optional[list[StoppedFrameOut]] = Field(None, description="interrupted: where each rank was")
    file: Optional[str] = Field(None, description="first_failing_rank: the file of the first failure")
    file_line: Optional[int] = None
    collective: Optional[str] = Field(None, description="missing_from_collective: the collective ranks wait in")
    waiting: Optional[list[int]] = Field(None, description="missing_from_collective: the ranks that wait in it")
    missing: Optional[list[int]] = Field(None, description="missing_from_collective: the ranks that never reached it")
    majority: Optional[list[StackOut]] = Field(None, description="stack_outlier: the stacks most ranks share")
    outliers: Optional[list[StackOut]] = Field(None, description="stack_outlier: the ranks that are elsewhere")


class BenignOut(FilePlace):
    id: str
    title: Optional[str] = None
    line_no: int
    line: str
    rank: Optional[int] = None
    url: str


class FailedRankOut(BaseModel):
    """A rank in the launcher's failure summary (torchrun's "Failures:" / "Root Cause" records)."""
    rank: Optional[int] = None
    exitcode: Optional[int] = None
    signal: Optional[str] = Field(None, description="e.g. SIGKILL, when the rank was killed by a signal")
    time: Optional[str] = None
    first: bool = Field(description="listed as the launcher's root cause (first observed failure)")
    lines: Optional[list[int]] = Field(None, description="[first, last]: the lines of its record in the summary")


class LogOut(BaseModel):
    lines: int
    ranks: list[int]
    exceptions: int
    truncated: bool
    dropped: dict[str, int] = Field(default_factory=dict, description="what was cut from the paste, and how much")
    encoding: Optional[str] = None
    failed_ranks: list[FailedRankOut]


class LeftOut(BaseModel):
    from_line: int
    to_line: int
    read: list[tuple[int, int]] = Field(default_factory=list, description=(
        "the ranges of lines within it (first, last) that were read all the same: the lines around a line "
        "that looks like a failure (an error, a traceback, a kill), found in one scan of the middle"))


class FileOut(BaseModel):
    """One file of a set (a multipart /match): what it was read as."""
    name: str
    kind: str = Field(description="what the file was recognised as (e.g. rank_log, error_file, pyspy)")
    rank: Optional[int] = None
    host: Optional[str] = None
    attempt: Optional[int] = None
    lines: int
    local_rank: Optional[bool] = Field(None, description="true: the rank in its name is a local rank")
    time: Optional[str] = None
    left_out: Optional[LeftOut] = Field(None, description="the lines cut from the middle of a long file")


class SkippedFileOut(BaseModel):
    name: str
    why: str


class TimelineOut(BaseModel):
    """The first failure of one rank (or file), earliest first (a multipart /match)."""
    rank: Optional[int] = None
    exception: str
    line: str
    cause: bool
    collective: Optional[str] = None
    file: Optional[str] = None
    file_line: Optional[int] = None
    host: Optional[str] = None
    file_part: Optional[str] = None
    time: Optional[str] = None


class MatchResponse(BaseModel):
    config: str = Field(description="the id of the ranking configuration that scored this result")
    matches: list[MatchOut]
    related: list[RelatedOut]
    root_cause: Optional[RootCauseOut] = None
    verdict: Optional[VerdictOut] = Field(None, description="on the root cause: who must act, and whether a retry "
                                                             "as is can help; null when nothing says")
    findings: list[FindingOut]
    benign: list[BenignOut] = Field(default_factory=list,
                                    description="known harmless lines (never the root cause), with their line numbers")
    environment: dict[str, str]
    log: LogOut
    took_ms: Optional[float] = None
    evidence_unavailable: Optional[bool] = Field(
        None, description="true when the database was unavailable: the rates are the curated estimates")
    files: Optional[list[FileOut]] = Field(None, description="several files (a multipart /match): each file read")
    skipped_files: Optional[list[SkippedFileOut]] = Field(None, description="files not read, and why")
    timeline: Optional[list[TimelineOut]] = Field(None, description="several files: each rank's first failure")
