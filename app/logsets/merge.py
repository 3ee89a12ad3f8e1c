"""Several logs into one annotated paste for the matcher, with a map back to (file, line).

Each file's lines get its rank the way a ``[rankN]:`` prefix would give it (the matcher reads that
prefix already), their timestamps stay, and an error file's JSON becomes its traceback, each line
stamped with the file's timestamp.  Files are kept whole and in this order: the files of ranks
(rank by rank; for each rank its error file first, then stderr, then stdout), then the files that
name no rank (a launcher's console, a host's or pod's log).  With timestamps the matcher's timeline
orders failures by time; without them this order stands, so a launcher's summary of a failure never
comes before the failure itself.  ``py-spy dump`` files are not matched: `analysis` reads them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import re2

from faultline.logsets.filetext import FileText
from faultline.logsets.inputs import Collected
from faultline.logsets.layout import FileInfo, recognise

MAX_MERGED_LINES = 18000  # under the parser's MAX_LINES: no file is cut by the parser in the middle of the set
MIN_FILE_LINES = 40
# lines read from the middles of long files, around lines that look like a failure (filetext.py), on top
# of MAX_MERGED_LINES and still under the parser's MAX_LINES; a file takes at most FILE_WINDOW_LINES
WINDOW_LINES = 1500
FILE_WINDOW_LINES = 400
_DIGITS = re2.compile(r"(\d+)")
_KIND_ORDER = {"error_file": 0, "stderr": 1, "stdout": 2, "log": 3, "pyspy": 4}


@dataclass
class Source:
    info: FileInfo
    lines: list[str]  # the file's text, as lines (an error file: its traceback)
    line_nos: list[int]  # the file's own line number of each of those lines
    total_lines: int
    timestamp: str | None = None  # an error file's time (UTC)
    left_out: tuple[int, int] | None = None  # file lines not matched (first, last)
    part: str | None = None  # where in the file the lines are (an error file: its traceback's JSON field)


@dataclass
class Merged:
    text: str
    origins: list[tuple[int, int]]  # for each line of text: (index into sources, line of that file)
    sources: list[Source]
    skipped: list[dict[str, str]] = field(default_factory=list)

    def origin(self, line_no: int | None) -> tuple[Source, int] | None:
        if line_no is None or not 1 <= line_no <= len(self.origins):
            return None
        i, n = self.origins[line_no - 1]
        return self.sources[i], n

    def original(self, line_no: int) -> str | None:
        o = self.origin(line_no)
        if o is None:
            return None
        src, n = o
        try:
            return src.lines[src.line_nos.index(n)].strip()
        except ValueError:
            return None


def _natural(name: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in _DIGITS.split(name)]


def sort_key(s: Source) -> tuple:
    i = s.info
    return (i.rank is None, i.attempt or 0, i.rank or 0, _KIND_ORDER.get(i.kind, 9), _natural(i.name))


def error_file_text(raw: str) -> tuple[list[str], str | None, str | None]:
    """A torchelastic error file (JSON, see torch/distributed/elastic/multiprocessing/errors/error_handler.py):
    its traceback lines, its time (ISO 8601, UTC) and the JSON field they are from.  Not JSON of that
    shape: its text as it is."""
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return raw.splitlines(), None, None
    if not isinstance(data, dict):
        return raw.splitlines(), None, None
    msg = data.get("message")
    ts: Any = data.get("timestamp")
    text = part = None
    if isinstance(msg, dict):
        extra = msg.get("extraInfo") if isinstance(msg.get("extraInfo"), dict) else {}
        if isinstance(extra.get("py_callstack"), str) and extra["py_callstack"].strip():
            text, part = extra["py_callstack"], "message.extraInfo.py_callstack"
        elif isinstance(msg.get("message"), str):
            text, part = msg["message"], "message.message"
        ts = extra.get("timestamp", ts)
    elif isinstance(msg, str):
        text, part = msg, "message"
    if text is None:
        return raw.splitlines(), None, None
    when = None
    try:
        when = datetime.fromtimestamp(int(str(ts)), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if ts else None
    except (ValueError, OverflowError, OSError):
        when = None
    return text.splitlines(), when, part


def _bounded(lines: list[str], cap: int) -> tuple[list[str], list[int], tuple[int, int] | None]:
    """At most ``cap`` lines: the first fifth and the end (where runs fail)."""
    nos = list(range(1, len(lines) + 1))
    if len(lines) <= cap:
        return lines, nos, None
    head = cap // 5
    tail = cap - head
    return lines[:head] + lines[-tail:], nos[:head] + nos[-tail:], (head + 1, len(lines) - tail)


def merge(collected: Collected) -> Merged:
    """One paste from the collected files (see the module's docstring)."""
    sources: list[Source] = []
    texts = []
    for f in collected.files:
        text = FileText(f.data)  # decoded whole only where needed (app/logsets/filetext.py)
        texts.append(text)
        sources.append(Source(recognise(f.name, text.head(2048)), [], [], 0))
    matched = [s for s in sources if s.info.kind != "pyspy"]
    cap = max(MIN_FILE_LINES, MAX_MERGED_LINES // max(1, len(matched)))
    windows_left = max(0, min(WINDOW_LINES, MAX_MERGED_LINES + WINDOW_LINES - cap * len(matched)))
    for s, text in zip(sources, texts):
        if s.info.kind == "error_file":
            lines, s.timestamp, s.part = error_file_text(text.text())
            s.total_lines = len(lines)
            s.lines, s.line_nos, s.left_out = _bounded(lines, cap)
        else:
            s.lines, s.line_nos, s.left_out, s.total_lines = text.bounded(
                cap, min(FILE_WINDOW_LINES, windows_left) if s.info.kind != "pyspy" else 0)
            if s.left_out:
                windows_left -= len(s.lines) - cap
    order = sorted(range(len(sources)), key=lambda i: sort_key(sources[i]))
    sources = [sources[i] for i in order]
    out: list[str] = []
    origins: list[tuple[int, int]] = []
    for i, s in enumerate(sources):
        if s.info.kind == "pyspy":
            continue
        prefix = f"[rank{s.info.rank}]: " if s.info.rank is not None else ""
        stamp = f"{s.timestamp} " if s.timestamp else ""
        for line, no in zip(s.lines, s.line_nos):
            out.append(stamp + prefix + line if stamp else prefix + line)
            origins.append((i, no))
    return Merged("\n".join(out) + ("\n" if out else ""), origins, sources, list(collected.skipped))


__all__ = ["Merged", "Source", "merge", "error_file_text"]
