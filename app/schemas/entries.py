"""Response bodies of /errors, /errors/{id}, /guides and /guides/{id} (JSON)."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    # views grow fields (e.g. rates from outcome reports); the listed ones are guaranteed
    model_config = ConfigDict(extra="allow")


class EntryListItem(_Open):
    id: str
    title: str
    domain: str
    category: str
    tags: list[str]
    fix_rate: float = Field(description="the entry's fix rate (an estimate unless outcome reports say otherwise)")
    url: str


class EntryList(_Open):
    lang: str
    total: int
    page: int
    per_page: int
    items: list[EntryListItem]


class WorkaroundView(_Open):
    action: str
    command: Optional[str] = None
    success_rate: float
    condition: Optional[str] = None
    tradeoff: Optional[str] = None
    applies_to: list[str] = []


class DeadEndView(_Open):
    action: str
    command: Optional[str] = None
    why_fails: str
    fail_rate: float


class VersionView(_Open):
    package: str
    range: str
    status: str
    introduced: Optional[str] = None
    deprecated: Optional[str] = None
    notes: Optional[str] = None


class EntryView(_Open):
    id: str
    lang: str
    url: str
    code: Optional[str] = None
    title: str
    error_text: str
    domain: str
    category: str
    tags: list[str]
    role: str
    signatures: list[dict[str, Any]]
    root_cause: str
    docs: list[dict[str, Any]]
    workarounds: list[WorkaroundView]
    dead_ends: list[DeadEndView]
    versions: list[VersionView]
    fix_rate: float
    first_seen: str
    provenance: dict[str, Any]
    related: list[str]
    guides: list[dict[str, Any]]
    blame: Optional[dict[str, Any]] = Field(None, description="who must act: kind, label and reason")
    retry: Optional[dict[str, Any]] = Field(None, description="whether a retry as is can help: kind, label and reason")


class GuideListItem(_Open):
    id: str
    title: str
    summary: str
    url: str


class GuideList(_Open):
    lang: str
    items: list[GuideListItem]


class GuideView(_Open):
    id: str
    lang: str
    url: str
    title: str
    summary: str
    sections: list[dict[str, Any]]
