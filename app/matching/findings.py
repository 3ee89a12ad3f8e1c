"""Detectors of things a log shows about the whole run, each a small pure function
``ParsedLog -> Finding | None``, registered in ``DETECTORS``.

Every pattern here runs on pasted text under RE2 (linear time)."""
from __future__ import annotations

from typing import Callable

import re2

from faultline.matching.logparse import ParsedLog
from faultline.matching.result import Finding

_WORK = re2.compile(r"WorkNCCL\(SeqNum=(\d+), OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?")
# "[Rank 3]" or "[PG ID 0 PG GUID 0(default_pg) Rank 3]" inside a message (torch <= 2.1 names its rank there)
RANK_IN_TEXT = re2.compile(r"\[(?:PG [^\]]*)?Rank (\d+)\]")

# the entries that explain each kind of collective desync, most likely first
_DESYNC_ENTRIES = {
    "different_step": ("pytorch/uneven-inputs-epoch-end-hang", "pytorch/collective-mismatch-detected"),
    "different_collective": ("pytorch/collective-mismatch-detected", "pytorch/uneven-inputs-epoch-end-hang"),
}


def rank_in_text(text: str) -> int | None:
    if "Rank " not in text:
        return None
    m = RANK_IN_TEXT.search(text)
    return int(m.group(1)) if m else None


def collective_desync(parsed: ParsedLog) -> Finding | None:
    """Ranks that timed out in different collectives: the ranks were not running the same program step."""
    seen: dict[int, tuple[int, str, str | None]] = {}
    if parsed.joined and "WorkNCCL(" not in parsed.joined:
        return None
    for ln in parsed.lines:
        if "WorkNCCL(" not in ln.text:
            continue
        m = _WORK.search(ln.text)
        if not m:
            continue
        rank = ln.rank if ln.rank is not None else rank_in_text(ln.text)
        if rank is not None and rank not in seen:
            seen[rank] = (int(m.group(1)), m.group(2), m.group(3))
    if len(seen) < 2 or len(set(seen.values())) < 2:
        return None
    kind = "different_step" if len({v[0] for v in seen.values()}) > 1 else "different_collective"
    ranks = {r: {"seq": v[0], "op": v[1], "numel_in": int(v[2]) if v[2] else None} for r, v in sorted(seen.items())}
    return Finding(kind, {"ranks": ranks}, _DESYNC_ENTRIES[kind])


DETECTORS: list[Callable[[ParsedLog], Finding | None]] = [collective_desync]


def detect(parsed: ParsedLog) -> list[Finding]:
    return [f for d in DETECTORS if (f := d(parsed)) is not None]
