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

import bisect
from itertools import accumulate

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


_CHUNK_BYTES = 1 << 16  # the middle is scanned from its end backwards in pieces of about this many bytes


def _marks(text: bytes, start: int, end: int, first_no: int) -> list[tuple[int, int]]:
    """(line number, offset of that line's start) of the marked lines of text[start:end] (starting at a
    line start, whose first line is line ``first_no``), in order: one RE2 search per marked line, the
    bytes between them counted, never decoded."""
    out: list[tuple[int, int]] = []
    pos, no = start, first_no
    while (m := _MARKS_BYTES.search(text, pos, end)) is not None:
        s = m.start()
        k = text.count(b"\n", pos, s)
        if k:
            no += k
            pos = text.rfind(b"\n", pos, s) + 1
        out.append((no, pos))
        nl = text.find(b"\n", s, end)
        if nl < 0:
            break
        pos, no = nl + 1, no + 1
    return out


def _middle_windows(text: bytes, start: int, end: int, first: int, last: int, budget: int,
                    breaks: list[int] | None = None):
    """The windows (first line, last line) of the middle text[start:end] (lines first..last, ``end`` just
    after the last one's line break), and the marks (line, start offset) they were chosen from.  The
    middle is scanned from its end backwards and the scan stops once the windows of the marks found use
    up the budget (earlier marks could not change them): a text marked on every line costs one piece.
    ``breaks``: the number of line breaks before each multiple of _CHUNK_BYTES (``_breaks_before``), if the
    caller counted them: the pieces then end at those multiples and their lines are numbered without
    counting the breaks again."""
    marks: list[tuple[int, int]] = []
    wins: list[tuple[int, int]] = []
    hi, hi_no = end, last + 1
    while hi > start:
        if breaks is not None:
            k = (hi - _CHUNK_BYTES) // _CHUNK_BYTES if hi - _CHUNK_BYTES > start else 0
            r = text.rfind(b"\n", start, k * _CHUNK_BYTES) if k * _CHUNK_BYTES > start else -1
            lo = r + 1 if r >= 0 else start
            # no break lies between lo and the k-th multiple: the line at lo is the one after breaks[k] breaks
            lo_no = breaks[k] + 1 if r >= 0 else first
        else:
            r = text.rfind(b"\n", start, hi - _CHUNK_BYTES) if hi - _CHUNK_BYTES > start else -1
            lo = r + 1 if r >= 0 else start
            lo_no = hi_no - text.count(b"\n", lo, hi)
        found = _marks(text, lo, hi, lo_no)
        if found:
            marks[:0] = found
            wins = _windows([n for n, _ in marks], first, last, budget)
            if sum(b - a + 1 for a, b in wins) >= budget:
                break
        hi, hi_no = lo, lo_no
    return wins, marks


def _breaks_before(data: bytes) -> list[int]:
    """The number of line breaks (b"\\n") before each multiple of _CHUNK_BYTES (and at the end): one pass."""
    counts = [data.count(b"\n", i, i + _CHUNK_BYTES) for i in range(0, len(data), _CHUNK_BYTES)]
    return list(accumulate(counts, initial=0))


def _line_offsets(d: bytes, a: int, b: int, known: list[tuple[int, int]]) -> tuple[int, int]:
    """Byte offsets of the start of line ``a`` and of the end of line ``b`` (after its break), walking from
    the nearest known (line, line start offset) at or after line ``a`` (a window starts a few lines
    before a mark), then forward over the window."""
    k = bisect.bisect_left(known, (a, -1))
    no, at = known[k]
    while no > a:
        at = d.rfind(b"\n", 0, at - 1) + 1
        no -= 1
    end = at
    for _ in range(b - a + 1):
        end = d.index(b"\n", end) + 1
    return at, end


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
        breaks = _breaks_before(d)  # counted once: the total, and the numbers of the middle's lines
        total = breaks[-1] + (1 if d and not d.endswith(b"\n") else 0)
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
            wins, marks = _middle_windows(d, pos, p + 1, head + 1, total - tail, window_lines, breaks)
            known = marks + [(total - tail + 1, p + 1)]
            for a, b in wins:
                at, end = _line_offsets(d, a, b, known)
                lines += _decode(d[at:end]).splitlines()
                nos += range(a, b + 1)
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
        # encoded once: RE2 reads UTF-8, and would encode a str again at every search
        middle = ("\n".join(lines[head:total - tail]) + "\n").encode("utf-8", "surrogatepass")
        for a, b in _middle_windows(middle, 0, len(middle), head + 1, total - tail, window_lines)[0]:
            kept += range(a - 1, b)
    kept += range(total - tail, total)
    return [lines[i] for i in kept], [nos[i] for i in kept], (head + 1, total - tail), total


__all__ = ["FileText"]
