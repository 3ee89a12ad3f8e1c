"""Request and response bodies of POST /errors/{id}/outcomes."""
from __future__ import annotations

from typing import Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator, model_validator

NOTE_MAX_BYTES = 2048


def _exactly_one_target(schema: dict) -> None:
    """The schema says what the validators check: exactly one target, an index from 1, never null,
    retry_worked only with retried true."""
    schema["oneOf"] = [{"required": ["workaround"]}, {"required": ["dead_end"]}]
    for name in ("workaround", "dead_end"):
        prop = schema["properties"][name]
        prop["anyOf"] = [{"type": "integer", "minimum": 1}, {"type": "string", "minLength": 1, "maxLength": 100}]
        prop.pop("default", None)
    for name in ("environment", "note", "retried", "retry_worked"):
        prop = schema["properties"][name]
        prop["anyOf"] = [x for x in prop.get("anyOf", []) if x.get("type") != "null"] or prop.get("anyOf")
        prop.pop("default", None)
    # how a rerun went is said only of a rerun: retry_worked needs "retried": true
    schema["if"] = {"required": ["retry_worked"]}
    schema["then"] = {"required": ["retried"], "properties": {"retried": {"const": True}}}


class OutcomeIn(BaseModel):
    """What happened when someone tried a workaround (or a dead end) of an entry."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=lambda schema: _exactly_one_target(schema))

    workaround: Optional[Union[StrictInt, StrictStr]] = Field(
        None, description="the workaround tried: its 1-based index in the entry, or its id (e.g. 'wa-1a2b3c4d5e')")
    dead_end: Optional[Union[StrictInt, StrictStr]] = Field(
        None, description="instead of a workaround: a dead end tried, by 1-based index or id ('de-...')")
    worked: StrictBool = Field(description="true when it fixed the error")
    environment: Optional[Union[dict[str, str], str]] = Field(
        None, description="versions, as in /match: a dict like {'torch': '2.3.1'} or pasted pip freeze text")
    note: Optional[str] = Field(None, max_length=NOTE_MAX_BYTES, description="free text, at most 2 KiB (UTF-8)")
    retried: Optional[StrictBool] = Field(
        None, description="the failure was first rerun as is (its verdict said transient)")
    retry_worked: Optional[StrictBool] = Field(None, description="with retried: whether that rerun as is succeeded")

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data):
        if isinstance(data, dict):
            for k in ("workaround", "dead_end", "environment", "note", "retried", "retry_worked"):
                if k in data and data[k] is None:
                    raise ValueError(f"'{k}' cannot be null: leave it out instead")
            for k in ("workaround", "dead_end"):
                v = data.get(k)
                if isinstance(v, float) and v.is_integer():  # JSON Schema counts 3.0 as an integer
                    data = {**data, k: int(v)}
                    v = data[k]
                if isinstance(v, str) and not 1 <= len(v) <= 100:
                    raise ValueError(f"'{k}' as an id is 1 to 100 characters")
        return data

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
        if self.retry_worked is not None and self.retried is not True:
            raise ValueError("'retry_worked' says how a rerun went: give it with 'retried': true")
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
    retried: Optional[bool] = Field(None, description="the failure was first rerun as is")
    retry_worked: Optional[bool] = Field(None, description="whether that rerun as is succeeded")
    repeat: bool = Field(description="true when this is an earlier report of the same token, entry and target (24 h)")
    rate: RateOut = Field(description="the target's rate with every report so far")
    fix_rate: RateOut = Field(description="the entry's fix rate with every report so far")


class InboxGroupOut(BaseModel):
    fingerprint: str
    count: int
    sample: str = Field(description="one failure line, scrubbed and masked")
    first_seen: str
    last_seen: str


class InboxOut(BaseModel):
    enabled: bool = Field(description="whether this service records unknown errors (FAULTLINE_INBOX=1)")
    groups: list[InboxGroupOut]
