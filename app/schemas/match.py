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


class MatchedLine(BaseModel):
    line: str
    line_no: int
    rank: Optional[int] = None
    signature: str


class WorkaroundOut(_Open):
    action: str
    command: Optional[str] = None
    success_rate: float
    applies: Optional[bool] = None


class DeadEndOut(_Open):
    action: str
    command: Optional[str] = None
    fail_rate: float


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
    fix_rate: Optional[float] = None
    root_cause: Optional[str] = None
    workarounds: list[WorkaroundOut]
    dead_ends: list[DeadEndOut]
    versions: list[dict[str, Any]]
    guides: list[dict[str, Any]]
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


class RootCauseOut(BaseModel):
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


class FindingOut(_Open):
    kind: str
    message: str
    entries: list[str] = Field(default_factory=list)


class BenignOut(BaseModel):
    id: str
    title: Optional[str] = None
    line_no: int
    line: str
    rank: Optional[int] = None
    url: str


class LogOut(BaseModel):
    lines: int
    ranks: list[int]
    exceptions: int
    truncated: bool
    dropped: dict[str, int] = Field(default_factory=dict, description="what was cut from the paste, and how much")
    encoding: Optional[str] = None
    failed_ranks: list[dict[str, Any]]


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
