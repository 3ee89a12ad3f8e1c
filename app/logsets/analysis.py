"""Reasoning across the files of a set: one timeline of failures, the ranks that never reached the
collective the others wait in, and the outlier among ``py-spy dump`` stacks of a hung job.

It reads the merged paste with the matcher's own parser (`app.matching.logparse.parse_log`), so a
traceback means here what it means to the matcher; py-spy files are read by a bounded line scan.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import re2

from faultline.logsets.merge import Merged, Source
from faultline.matching.logparse import ParsedLog, PyException
from faultline.matching.roots import is_cause

# the collectives (and point-to-point calls) of torch.distributed whose frames say where a rank waits
COLLECTIVES = frozenset({
    "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "reduce_scatter",
    "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "broadcast", "broadcast_object_list", "reduce",
    "barrier", "monitored_barrier", "gather", "gather_object", "scatter", "scatter_object_list", "send", "recv",
    "isend", "irecv", "batch_isend_irecv", "_allgather_base", "_reduce_scatter_base", "wait",
})
_C10D_FILES = ("distributed_c10d.py", "torch/distributed/")
_PYSPY_FRAME = re2.compile(r"^\s{2,8}(\S.{0,300}?) \((\S.{0,500}?):(\d{1,7})\)$")
_PYSPY_THREAD = re2.compile(r"^Thread (0x[0-9A-Fa-f]{1,16}|\d{1,10}) \((\w{1,20})[^)]{0,40}\): \"([^\"]{0,200})\"")
MAX_TIMELINE = 64
MAX_STACK = 40


@dataclass
class Stack:
    source: Source
    frames: list[tuple[str, str, int, int]] = field(default_factory=list)  # function, file, line, file line no

    def key(self) -> tuple[tuple[str, str], ...]:
        return tuple((f, p) for f, p, _, _ in self.frames)


def _collective_of(functions_files: list[tuple[str, str]]) -> str | None:
    """The innermost torch.distributed collective among frames (outermost first)."""
    found = None
    for fn, path in functions_files:
        if fn in COLLECTIVES and any(m in path.replace("\\", "/") for m in _C10D_FILES):
            found = fn if fn != "wait" or found is None else found
    return found


def _where(merged: Merged, line_no: int) -> dict[str, Any]:
    o = merged.origin(line_no)
    if o is None:
        return {}
    src, n = o
    out: dict[str, Any] = {"file": src.info.name, "file_line": n}
    if src.info.host:
        out["host"] = src.info.host
    if src.part:
        out["file_part"] = src.part
    if src.timestamp:
        out["time"] = src.timestamp
    return out


def timeline(parsed: ParsedLog, merged: Merged) -> list[dict[str, Any]]:
    """The first failure of each rank (or of each file that names no rank), earliest first."""
    firsts: dict[Any, PyException] = {}
    for exc in parsed.exceptions:
        if exc.chained_from is not None:
            continue
        o = merged.origin(exc.line.no)
        key = exc.line.rank if exc.line.rank is not None else ("file", o[0].info.name if o else None)
        cur = firsts.get(key)
        if cur is None or (exc.line.ets, exc.line.no) < (cur.line.ets, cur.line.no):
            firsts[key] = exc
    out = []
    for exc in sorted(firsts.values(), key=lambda e: (e.line.ets, e.line.no))[:MAX_TIMELINE]:
        fns = [(f.function, f.file) for f in exc.frames]
        item: dict[str, Any] = {"rank": exc.line.rank, "exception": exc.type, "line": merged.original(exc.line.no),
                                "cause": is_cause(exc.line, [], lambda _e: "cause"), "collective": _collective_of(fns)}
        item.update(_where(merged, exc.line.no))
        out.append(item)
    return out


def read_pyspy(src: Source) -> Stack | None:
    """The main thread's stack of a ``py-spy dump`` (the first thread when none is called MainThread)."""
    stacks: list[tuple[str, Stack]] = []
    cur: Stack | None = None
    for line, no in zip(src.lines, src.line_nos):
        if line.startswith("Thread "):
            m = _PYSPY_THREAD.search(line)
            cur = Stack(src) if m else None
            if m:
                stacks.append((m.group(3), cur))
            continue
        if cur is not None and len(cur.frames) < MAX_STACK and (m := _PYSPY_FRAME.search(line)):
            cur.frames.append((m.group(1), m.group(2), int(m.group(3)), no))
    main = next((s for name, s in stacks if name == "MainThread"), stacks[0][1] if stacks else None)
    if main is None or not main.frames:
        return None
    main.frames.reverse()  # py-spy prints the innermost frame first; outermost first, as tracebacks do
    return main


def stack_outliers(merged: Merged) -> dict[str, Any] | None:
    """Ranks whose main-thread stack differs from the one most ranks share (a hang's usual culprit)."""
    stacks = [s for src in merged.sources if src.info.kind == "pyspy" and (s := read_pyspy(src))]
    if len(stacks) < 2:
        return None
    counts = Counter(s.key() for s in stacks)
    (common, n), = counts.most_common(1)
    if n < 2 or n == len(stacks):
        return None

    def desc(s: Stack) -> dict[str, Any]:
        fn, path, line, no = s.frames[-1]
        return {"rank": s.source.info.rank, "host": s.source.info.host, "file": s.source.info.name, "file_line": no,
                "frame": f"{fn} ({path}:{line})", "collective": _collective_of([(f, p) for f, p, _, _ in s.frames])}

    majority = [desc(s) for s in stacks if s.key() == common]
    return {"majority": majority, "outliers": [desc(s) for s in stacks if s.key() != common]}


def missing_from_collective(items: list[dict[str, Any]], ranks: set[int]) -> dict[str, Any] | None:
    """The ranks that are not in the collective the other ranks wait in (failed or hung before it)."""
    waiting: dict[str, set[int]] = {}
    for it in items:
        if it.get("collective") and it.get("rank") is not None:
            waiting.setdefault(it["collective"], set()).add(it["rank"])
    if not waiting:
        return None
    coll, in_it = max(waiting.items(), key=lambda kv: (len(kv[1]), kv[0]))
    missing = sorted(ranks - in_it)
    if not missing:
        return None
    return {"collective": coll, "waiting": sorted(in_it), "missing": missing}


def known_ranks(merged: Merged, parsed: ParsedLog) -> set[int]:
    return {s.info.rank for s in merged.sources if s.info.rank is not None} | set(parsed.ranks)


__all__ = ["timeline", "stack_outliers", "missing_from_collective", "read_pyspy", "known_ranks", "COLLECTIVES"]
