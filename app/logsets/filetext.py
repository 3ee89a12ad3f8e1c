"""One log file's text as `merge` needs it, read only where it is needed.

`merge` keeps at most a few hundred lines of each file of a big set (its first fifth and its end) and
needs the file's number of lines and its first characters (to recognise it).  A file of plain UTF-8
text whose only line break is ``\\n`` (what a training job writes, nearly always) is therefore not
decoded and split whole: its lines are counted on the bytes (``bytes.count``), and only the lines
kept are decoded.  Any other file (a BOM, UTF-16, ``\\r``, form feeds, U+2028 ...) is decoded whole as
before.  Both ways give the same lines, numbers and counts as ``decode_paste(data).text.splitlines()``:
a UTF-8 decoder never carries state across a ``\\n`` byte, so decoding the pieces between two
newlines gives what decoding the whole gives there, replacement characters included.
"""
from __future__ import annotations

import re2

from faultline.matching.decode import decode_paste

# line breaks of str.splitlines other than "\n": the ASCII ones, and U+0085, U+2028, U+2029 in UTF-8
_ASCII_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_WIDE_BREAKS = ((b"\x85", b"\xc2\x85"), (b"\xa8", b"\xe2\x80\xa8"), (b"\xa9", b"\xe2\x80\xa9"))  # (last byte, all)


def _only_newlines(data: bytes) -> bool:
    """No line break but ``\\n`` (single-byte scans first: a multi-byte search runs only when its last byte occurs)."""
    if any(b in data for b in _ASCII_BREAKS):
        return False
    return not any(last in data and seq in data for last, seq in _WIDE_BREAKS)


# What a failure looks like on a line, in any library's words.  The middle of a long file, which the
# head and the tail leave out, is searched for these in one pass over its bytes (RE2, linear time), and
# the lines around each are read too: a rank whose error is followed by thousands of lines (a teardown,
# a dump of every thread, a logger flushing) still shows it.  Case-insensitive; words, not messages.
_FAILURE_MARKS = (r"(?i)traceback \(most recent call last\)|error|exception|fatal|fail|killed|abort"
                  r"|segmentation fault|core dumped|timed out|timeout|out of memory|nccl warn|terminate called"
                  r"|what\(\):|\bsig(?:kill|segv|abrt|bus|term|int)\b")
_MARKS_BYTES = re2.compile(_FAILURE_MARKS.encode())
_MARKS_TEXT = re2.compile(_FAILURE_MARKS)
WINDOW_BEFORE = 3  # lines kept before a marked line of the middle
WINDOW_AFTER = 40  # and after it (a traceback's frames and its exception line come after "Traceback")


def _windows(marks: list[int], first: int, last: int, budget: int) -> list[tuple[int, int]]:
    """Line ranges (first, last, inclusive) around the marked lines, within [first, last], merged where
    they touch, at most ``budget`` lines in all.  The latest marks are taken first: what ends a run is
    near the end of its file (and a metric called "error" on every line of a log must not use up the
    budget at its start)."""
    out: list[tuple[int, int]] = []  # from the end backwards
    left = budget
    for n in reversed(marks):
        if left <= 0:
            break
        if out and n >= out[-1][0]:
            continue  # inside the window already taken
        a = max(first, n - WINDOW_BEFORE)
        b = min(last, n + WINDOW_AFTER, out[-1][0] - 1 if out else last)
        if b - a + 1 > left:
            a = max(a, n - left // 4)
            b = min(b, a + left - 1)
        if out and b == out[-1][0] - 1:
            out[-1] = (a, out[-1][1])
        else:
            out.append((a, b))
        left -= b - a + 1
    return out[::-1]


def _marked_lines_bytes(d: bytes, start: int, end: int, first_no: int) -> list[int]:
    """Line numbers of the marked lines of d[start:end] (whose first line is line ``first_no``), in order:
    one RE2 search per marked line, the bytes between them counted, never decoded."""
    out: list[int] = []
    pos, no = start, first_no
    while (m := _MARKS_BYTES.search(d, pos, end)) is not None:
        s = m.start()
        no += d.count(b"\n", pos, s)
        out.append(no)
        nl = d.find(b"\n", s, end)
        if nl < 0:
            break
        pos, no = nl + 1, no + 1
    return out


def _marked_lines_text(lines: list[str], first_no: int) -> list[int]:
    return [first_no + k for k, line in enumerate(lines) if _MARKS_TEXT.search(line)]


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")  # what decode_paste does to plain UTF-8 (no BOM)


class FileText:
    """A file's bytes, with its text decoded whole only when a caller needs all of it."""

    def __init__(self, data: bytes):
        self.data = data
        self._text: str | None = None
        # decode_paste decides the encoding from the first 4,098 bytes only
        self.plain = decode_paste(data[:8192]).encoding == "utf-8" and _only_newlines(data)

    def text(self) -> str:
        if self._text is None:
            self._text = decode_paste(self.data).text
        return self._text

    def head(self, chars: int = 2048) -> str:
        """The text's first ``chars`` characters."""
        if not self.plain or self._text is not None:
            return self.text()[:chars]
        end = self.data.find(b"\n", 4 * chars + 4)  # 4 * chars + 4 bytes hold at least chars + 1 characters
        return _decode(self.data[: end + 1] if end >= 0 else self.data)[:chars]

    def lines(self) -> list[str]:
        return self.text().splitlines()

    def bounded(self, cap: int, window_lines: int = 0) -> tuple[list[str], list[int], tuple[int, int] | None, int]:
        """(lines, their line numbers, the lines left out (first, last) or None, the number of lines):
        at most ``cap`` lines, the first fifth and the end (where runs fail), as ``merge._bounded``, and
        up to ``window_lines`` more from the middle: those around a line that looks like a failure."""
        d = self.data
        if not self.plain:
            return _bounded(self.lines(), cap, window_lines)
        total = d.count(b"\n") + (1 if d and not d.endswith(b"\n") else 0)
        if total <= cap:
            return _bounded(self.lines(), cap)
        head = cap // 5
        tail = cap - head
        pos = 0
        for _ in range(head):
            pos = d.index(b"\n", pos) + 1
        p = len(d) - 1 if d.endswith(b"\n") else len(d)
        for _ in range(tail):
            p = d.rindex(b"\n", 0, p)
        lines = _decode(d[:pos]).splitlines()
        nos = list(range(1, head + 1))
        if window_lines > 0:
            wins = _windows(_marked_lines_bytes(d, pos, p, head + 1), head + 1, total - tail, window_lines)
            at, no = pos, head + 1  # a byte offset and the line that starts there
            for a, b in wins:
                for _ in range(a - no):
                    at = d.index(b"\n", at) + 1
                end = at
                for _ in range(b - a + 1):
                    end = d.index(b"\n", end) + 1
                lines += _decode(d[at:end]).splitlines()
                nos += range(a, b + 1)
                at, no = end, b + 1
        lines += _decode(d[p + 1:]).splitlines()
        nos += range(total - tail + 1, total + 1)
        return lines, nos, (head + 1, total - tail), total


def _bounded(lines: list[str], cap: int, window_lines: int = 0) -> tuple[list[str], list[int], tuple[int, int] | None, int]:
    nos = list(range(1, len(lines) + 1))
    if len(lines) <= cap:
        return lines, nos, None, len(lines)
    head = cap // 5
    tail = cap - head
    total = len(lines)
    kept = list(range(head))
    if window_lines > 0:
        marked = _marked_lines_text(lines[head:total - tail], head + 1)
        for a, b in _windows(marked, head + 1, total - tail, window_lines):
            kept += range(a - 1, b)
    kept += range(total - tail, total)
    return [lines[i] for i in kept], [nos[i] for i in kept], (head + 1, total - tail), total


__all__ = ["FileText"]
