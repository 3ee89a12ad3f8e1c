"""The structured pieces of a paste: its lines, frames and exceptions (filled in by logparse and tracebacks)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Literal

LineKind = Literal["text", "frame", "code", "traceback", "exception", "what", "cpp", "cppframe", "nccl", "chain"]


@dataclass(slots=True)
class Line:
    no: int  # 1-based line number in the paste
    raw: str
    text: str  # prefixes removed
    rank: int | None = None
    ts: float | None = None  # sortable within one log (month, day, seconds)
    indented: bool = False  # the text (after prefixes) started with whitespace
    block: int | None = None  # for an exception's message lines: the line number of the exception line
    ets: float = 0.0  # effective time: own timestamp, else the last one seen before it (same rank first)
    kind: LineKind = "text"


@dataclass
class Frame:
    file: str
    line: int
    function: str
    library: bool


@dataclass
class PyException:
    type: str
    message: str
    line: Line
    frames: list[Frame] = field(default_factory=list)
    cause_of: "PyException | None" = None  # the exception raised while handling / from this one
    chained_from: "PyException | None" = None

    @property
    def rank(self) -> int | None:
        return self.line.rank


def line_indices(text: str, offsets: Iterable[int]) -> dict[int, int]:
    """Each offset's line in ``text`` (0-based: the line breaks before it), counted from one offset to the next
    in order: one pass over the text at most, whatever the number of offsets."""
    out: dict[int, int] = {}
    li = pos = 0
    for at in sorted(set(offsets)):
        li += text.count("\n", pos, at)
        pos = at
        out[at] = li
    return out
