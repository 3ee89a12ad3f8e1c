"""The response models `app.client` returns.

They are the API's own models from ``app/schemas`` where the route has one.  Until a route's model
lands there, the client uses the interim model of the same shape below (extra fields kept, so
nothing the service sends is lost)."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict

from app.schemas.match import MatchResponse  # noqa: F401 - POST /match
from app.schemas.outcomes import OutcomeOut as OutcomeReport  # noqa: F401 - POST /errors/{id}/outcomes


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Workaround(_Open):
    action: str
    command: Optional[str] = None
    success_rate: float
    condition: Optional[str] = None
    tradeoff: Optional[str] = None
    applies: Optional[bool] = None


class DeadEnd(_Open):
    action: str
    command: Optional[str] = None
    why_fails: Optional[str] = None
    fail_rate: float


class EntryItem(_Open):
    id: str
    title: str
    domain: str
    category: Optional[str] = None
    tags: list[str] = []
    fix_rate: Optional[float] = None
    url: str


class EntryList(_Open):
    lang: str
    total: int
    page: int
    per_page: int
    items: list[EntryItem]


class EntryView(_Open):
    id: str
    lang: str
    url: str
    title: str
    error_text: str
    domain: str
    tags: list[str] = []
    root_cause: str
    workarounds: list[Workaround]
    dead_ends: list[DeadEnd]
    versions: list[dict[str, Any]] = []
    fix_rate: float


class GuideItem(_Open):
    id: str
    title: str
    summary: Optional[str] = None
    url: str


class GuideList(_Open):
    lang: str
    items: list[GuideItem]


class GuideView(_Open):
    id: str
    lang: str
    url: str
    title: str
    summary: Optional[str] = None
    sections: list[dict[str, Any]] = []
    entries: list[str] = []


class Health(_Open):
    status: str
    entries: int
