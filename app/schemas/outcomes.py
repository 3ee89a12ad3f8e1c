"""Request and response bodies of POST /errors/{id}/outcomes."""
from __future__ import annotations

from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator, model_validator

NOTE_MAX_BYTES = 2048


class OutcomeIn(BaseModel):
    """What happened when someone tried a workaround (or a dead end) of an entry."""

    model_config = ConfigDict(extra="forbid")

    workaround: Optional[Union[StrictInt, StrictStr]] = Field(
        None, description="the workaround tried: its 1-based index in the entry, or its id (e.g. 'wa-1a2b3c4d5e')")
    dead_end: Optional[Union[StrictInt, StrictStr]] = Field(
        None, description="instead of a workaround: a dead end tried, by 1-based index or id ('de-...')")
    worked: StrictBool = Field(description="true when it fixed the error")
    environment: Optional[Union[dict[str, str], str]] = Field(
        None, description="versions, as in /match: a dict like {'torch': '2.3.1'} or pasted pip freeze text")
    note: Optional[str] = Field(None, description="free text, at most 2 KiB (UTF-8)")

    @field_validator("note")
    @classmethod
    def _note_size(cls, v: str | None) -> str | None:
        if v is not None and len(v.encode("utf-8", "surrogatepass")) > NOTE_MAX_BYTES:
            raise ValueError(f"the note is longer than {NOTE_MAX_BYTES} bytes (2 KiB)")
        return v

    @field_validator("environment")
    @classmethod
    def _env_size(cls, v):
        size = len(v) if isinstance(v, str) else sum(len(k) + len(x) for k, x in v.items()) if v else 0
        if size > 64 * 1024:
            raise ValueError("the environment is longer than 64 KiB")
        return v

    @model_validator(mode="after")
    def _one_target(self) -> "OutcomeIn":
        if (self.workaround is None) == (self.dead_end is None):
            raise ValueError("give exactly one of 'workaround' or 'dead_end'")
        ref = self.workaround if self.workaround is not None else self.dead_end
        if isinstance(ref, int) and ref < 1:
            raise ValueError("a workaround or dead end index starts at 1")
        return self


class RateOut(BaseModel):
    value: float
    estimate: float
    interval: list[float]
    reports: int
    successes: int
    basis: str
    label: str
    detail: str


class OutcomeOut(BaseModel):
    id: int
    entry: str
    workaround: Optional[int] = None
    dead_end: Optional[int] = None
    target_id: str
    worked: bool
    environment: Optional[Union[dict[str, str], str]] = None
    note: Optional[str] = None
    created: str
    repeat: bool = Field(description="true when this is an earlier report of the same token, entry and target (24 h)")
    rate: RateOut = Field(description="the target's rate with every report so far")
    fix_rate: RateOut = Field(description="the entry's fix rate with every report so far")
