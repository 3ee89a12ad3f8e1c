"""A run stopped by its user (Ctrl-C, SIGINT): not an error of the job.

When the first failure of a log is a ``KeyboardInterrupt`` (or a launcher's report of SIGINT), the
errors that follow it are consequences of stopping the job: a rank whose peer was interrupted loses
its connection (gloo's "Connection closed by peer"), torchrun raises ``SignalException``.  For a hang,
what each rank was doing when it was stopped is the useful part: the innermost frame of the user's own
code in each rank's ``KeyboardInterrupt`` traceback, with its source line.
"""
from __future__ import annotations

from typing import Any

import re2

from faultline.matching.logparse import Line, ParsedLog
from faultline.matching.result import Finding

# torchrun's agent on SIGINT: "Received 2 death signal, shutting down workers", "got signal: 2"
_SIGINT_REPORT = re2.compile(r"Received 2 death signal|got signal: 2$|Signal 2 \(SIGINT\)")


def is_interrupt_line(line: Line | None, parsed: ParsedLog) -> bool:
    if line is None:
        return False
    if _SIGINT_REPORT.search(line.text):
        return True
    return any(e.line.no == line.no and e.type == "KeyboardInterrupt" for e in parsed.exceptions)


def caused_by_interrupt(line: Line, root: Line) -> bool:
    """A symptom line that stopping the job explains: on a rank of a multi-rank job that was stopped,
    or the launcher's own report of SIGINT."""
    return bool(_SIGINT_REPORT.search(line.text)) or (root.rank is not None and line.rank is not None)


def _code_after(parsed: ParsedLog, exc_line: Line, file: str, lineno: int) -> str | None:
    """The source line printed under the frame ``file``, ``lineno`` of the traceback ending at ``exc_line``."""
    needle = f'"{file}", line {lineno},'
    lines = [ln for ln in parsed.lines if ln.rank == exc_line.rank and ln.no < exc_line.no]
    for i in range(len(lines) - 1, -1, -1):
        ln = lines[i]
        if ln.kind == "traceback":
            return None
        if ln.kind == "frame" and needle in ln.text:
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            if nxt is not None and nxt.kind == "code":
                return nxt.text.split("  #", 1)[0].strip() or None
            return None
    return None


def last_frames(parsed: ParsedLog) -> list[dict[str, Any]]:
    """Where each process was when it was interrupted: one record per rank (the first KeyboardInterrupt)."""
    seen: set[int | None] = set()
    out: list[dict[str, Any]] = []
    for e in parsed.exceptions:
        if e.type != "KeyboardInterrupt" or e.rank in seen or not e.frames:
            continue
        seen.add(e.rank)
        f = next((fr for fr in reversed(e.frames) if not fr.library), e.frames[-1])
        out.append({"rank": e.rank, "file": f.file, "line": f.line, "function": f.function,
                    "code": _code_after(parsed, e.line, f.file, f.line), "line_no": e.line.no})
    return sorted(out, key=lambda r: (r["rank"] is None, r["rank"] or 0))


def interrupted(parsed: ParsedLog, root: Line | None, root_is_cause: bool) -> Finding | None:
    """The finding ``interrupted`` when the first failure is the user stopping the run."""
    if root_is_cause or not is_interrupt_line(root, parsed):
        return None
    return Finding("interrupted", {"rank": root.rank, "line_no": root.no, "frames": last_frames(parsed)})
