"""The one definition of a knowledge-base entry (and of a guide).

Every file under ``kb/`` is validated against these pydantic models before
anything reaches the database.  Human-readable text is always a ``Text``
(English and Simplified Chinese); commands, code and error text are plain
strings and are never translated.
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Literal, Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

LANGS: tuple[str, ...] = ("en", "zh")
ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*/[a-z0-9][a-z0-9._-]*$")
GUIDE_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_CJK_CHARS = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK_CHARS}])[ \t\n]+(?=[{_CJK_CHARS}])")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Text(_Model):
    """A human-readable text in every supported language."""

    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)

    @field_validator("zh")
    @classmethod
    def _join_cjk(cls, v: str) -> str:
        """Folded YAML puts a space at every line break; between two Chinese characters it does not belong."""
        return _CJK_GAP.sub("", v)

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


def _rate(v: float) -> float:
    if not 0.0 <= v <= 1.0:
        raise ValueError("must be between 0 and 1")
    return v


class Signature(_Model):
    """A pattern that recognises the error on one line of a log (RE2 syntax)."""

    name: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    pattern: str = Field(min_length=1)
    ignore_case: bool = False
    examples: list[str] = Field(min_length=1)
    versions: Optional[str] = None  # free note, e.g. "torch>=2.1 wording"
    # for a message other code paths print too: counts only when the log also mentions one of these
    # (case-insensitive), e.g. ["deepspeed", "zero_optimization"]
    context: list[str] = Field(default_factory=list)
    # what `faultline verify` found (kb/verification/<id>.json, see app/verify/records.display); set when
    # the KB is read, never written in an entry file
    verification: Optional[dict] = None


class LogCondition(_Model):
    """When a workaround fits the log at hand, as the matcher can check it (app/matching/conditions.py).
    Every field that is set must hold: ``pattern`` (RE2, case-sensitive unless it says ``(?i)``) holds
    when a line of the log matches it, the source lines a traceback prints included (no line matching
    it leaves the fit unknown, not failed); ``some_ranks_only``
    true holds when the error was raised on some ranks but not on every rank of a multi-rank log (one
    rank's input or state differs), false when it was raised on every rank or in a single process."""
    pattern: Optional[str] = Field(None, min_length=3)
    some_ranks_only: Optional[bool] = None

    @model_validator(mode="after")
    def _something(self) -> "LogCondition":
        if self.pattern is None and self.some_ranks_only is None:
            raise ValueError("a `when` needs `pattern` or `some_ranks_only`")
        if self.pattern is not None:
            import re2  # the matcher's engine: linear time on any log

            try:
                re2.compile(self.pattern)
            except Exception as exc:  # noqa: BLE001 - re2.error and its kin
                raise ValueError(f"`when.pattern` is not a valid RE2 pattern: {exc}") from None
        return self


class Workaround(_Model):
    action: Text
    command: Optional[str] = None
    success_rate: float
    condition: Optional[Text] = None
    tradeoff: Optional[Text] = None
    applies_to: list[str] = Field(default_factory=list)  # e.g. ["torch>=2.2"]
    when: Optional[LogCondition] = None  # checked against the log: fitting fixes come first, others are marked
    sources: list[str] = Field(default_factory=list)

    _r = field_validator("success_rate")(lambda cls, v: _rate(v))

    @field_validator("applies_to")
    @classmethod
    def _reqs(cls, v: list[str]) -> list[str]:
        for req in v:
            parse_requirement(req)
        return v


class DeadEnd(_Model):
    action: Text
    command: Optional[str] = None
    why_fails: Text
    fail_rate: float
    sources: list[str] = Field(default_factory=list)

    _r = field_validator("fail_rate")(lambda cls, v: _rate(v))


VersionStatus = Literal["affected", "fixed", "not_affected", "message_changed"]


class VersionRow(_Model):
    package: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    range: str = Field(min_length=1)  # PEP 440 specifier set, e.g. ">=2.0,<2.6"
    status: VersionStatus
    introduced: Optional[str] = None
    deprecated: Optional[str] = None
    notes: Optional[Text] = None

    @field_validator("range")
    @classmethod
    def _spec(cls, v: str) -> str:
        try:
            SpecifierSet(v)
        except InvalidSpecifier as exc:
            raise ValueError(f"not a version range (PEP 440): {v!r}") from exc
        return v


class DocLink(_Model):
    url: str = Field(pattern=r"^https?://\S+$")
    title: Optional[str] = None


class Provenance(_Model):
    source: Literal["curated", "ai_generated", "community", "imported"]
    rates: Literal["estimated", "measured"]
    note: Optional[Text] = None
    attribution: Optional[str] = None


Blame = Literal[
    "user_code", "configuration", "library_version", "installation",
    "environment", "hardware", "network", "scheduler",
]
Retry = Literal["transient", "after_change", "never_as_is"]


class BlameVerdict(_Model):
    """Who must act on this error (issue: verdict), with a short reason."""

    kind: Blame
    reason: Text


class RetryVerdict(_Model):
    """Whether rerunning as is can help: transient (retry as is), after_change, never_as_is."""

    kind: Retry
    reason: Text


class ReportsSeen(_Model):
    """How many public threads report this message, counted on a date, and how they were counted."""

    count: int = Field(ge=0)
    date: _dt.date
    how: Optional[str] = None


class Entry(_Model):
    id: str
    code: Optional[str] = None
    title: Text
    error_text: str = Field(min_length=1)
    category: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)
    # cause: the error itself; symptom: usually a consequence of a failure elsewhere (another rank);
    # wrapper: only reports that something else failed (torchrun's ChildFailedError summary);
    # benign: a line people mistake for the cause (a warning or INFO line); never the root cause
    role: Literal["cause", "symptom", "wrapper", "benign"] = "cause"
    signatures: list[Signature] = Field(min_length=1)
    root_cause: Text
    docs: list[DocLink] = Field(min_length=1)
    workarounds: list[Workaround] = Field(min_length=1)
    dead_ends: list[DeadEnd] = Field(default_factory=list)
    versions: list[VersionRow] = Field(default_factory=list)
    fix_rate: float
    confidence: float
    evidence_count: int = Field(ge=0)
    first_seen: _dt.date
    provenance: Provenance
    completeness: Literal["partial", "complete"]
    related: list[str] = Field(default_factory=list)
    # typed relations: this error, on one rank or process, is known to lead to these errors elsewhere
    # (e.g. a CUDA OOM on one rank leads to NCCL timeouts on the others)
    leads_to: list[str] = Field(default_factory=list)
    guides: list[str] = Field(default_factory=list)
    # who must act and whether a retry as is is worth it (lint requires both)
    blame: Optional[BlameVerdict] = None
    retry: Optional[RetryVerdict] = None
    # every public thread read to write or extend this entry; empty with seen_in_none saying why
    seen_in: list[str] = Field(default_factory=list)
    seen_in_none: Optional[str] = None
    reports_seen: Optional[ReportsSeen] = None

    _r = field_validator("fix_rate", "confidence")(lambda cls, v: _rate(v))

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ID_RE.match(v):
            raise ValueError("must look like 'domain/slug' (lowercase letters, digits, '-', '_', '.')")
        return v

    @field_validator("seen_in")
    @classmethod
    def _seen_in(cls, v: list[str]) -> list[str]:
        for url in v:
            if not re.match(r"^https?://\S+$", url):
                raise ValueError(f"seen_in holds URLs of public threads, not {url!r}")
        if len(v) != len(set(v)):
            raise ValueError("seen_in lists each thread once")
        return v

    @field_validator("related", "leads_to")
    @classmethod
    def _related(cls, v: list[str]) -> list[str]:
        for rid in v:
            if not ID_RE.match(rid):
                raise ValueError(f"related id {rid!r} must look like 'domain/slug'")
        return v

    @model_validator(mode="after")
    def _unique_signature_names(self) -> "Entry":
        names = [s.name for s in self.signatures]
        if len(names) != len(set(names)):
            raise ValueError("signature names must be unique within an entry")
        if self.id in self.related:
            raise ValueError("an entry cannot be related to itself")
        return self

    @property
    def domain(self) -> str:
        return self.id.split("/", 1)[0]

    def ranked_workarounds(self) -> list[Workaround]:
        return sorted(self.workarounds, key=lambda w: -w.success_rate)

    def ranked_dead_ends(self) -> list[DeadEnd]:
        return sorted(self.dead_ends, key=lambda d: -d.fail_rate)


class Table(_Model):
    header: list[Text] = Field(min_length=1)
    rows: list[list[Text]] = Field(min_length=1)

    @model_validator(mode="after")
    def _shape(self) -> "Table":
        for row in self.rows:
            if len(row) != len(self.header):
                raise ValueError("every table row needs as many cells as the header")
        return self


class GuideSection(_Model):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: Text
    body: Text
    steps: list[Text] = Field(default_factory=list)
    commands: list[str] = Field(default_factory=list)
    table: Optional[Table] = None


class Guide(_Model):
    id: str
    title: Text
    summary: Text
    sections: list[GuideSection] = Field(min_length=1)
    docs: list[DocLink] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not GUIDE_ID_RE.match(v):
            raise ValueError("must be a slug (lowercase letters, digits, '-')")
        return v


_REQ_RE = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$")


def untranslated(model: BaseModel, loc: str = "") -> list[str]:
    """Field paths of every Text whose zh holds no Chinese characters (kb/ files must translate)."""
    out: list[str] = []
    if isinstance(model, Text):
        if not _CJK.search(model.zh):
            out.append(f"{loc}.zh" if loc else "zh")
        return out
    for name in type(model).model_fields:
        val = getattr(model, name)
        path = f"{loc}.{name}" if loc else name
        if isinstance(val, BaseModel):
            out += untranslated(val, path)
        elif isinstance(val, list):
            for i, item in enumerate(val):
                if isinstance(item, BaseModel):
                    out += untranslated(item, f"{path}.{i}")
                elif isinstance(item, list):
                    for j, cell in enumerate(item):
                        if isinstance(cell, BaseModel):
                            out += untranslated(cell, f"{path}.{i}.{j}")
    return out


def parse_requirement(req: str) -> tuple[str, SpecifierSet]:
    """'torch>=2.2,<2.6' -> ('torch', SpecifierSet('>=2.2,<2.6'))."""
    m = _REQ_RE.match(req)
    if not m:
        raise ValueError(f"not a requirement like 'torch>=2.2': {req!r}")
    try:
        return normalize_package(m.group(1)), SpecifierSet(m.group(2).strip())
    except InvalidSpecifier as exc:
        raise ValueError(f"not a requirement like 'torch>=2.2': {req!r}") from exc


def normalize_package(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
