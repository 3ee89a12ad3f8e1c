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

from faultline.matching.decode import decode_paste

# line breaks of str.splitlines other than "\n": the ASCII ones, and U+0085, U+2028, U+2029 in UTF-8
_ASCII_BREAKS = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")
_WIDE_BREAKS = ((b"\x85", b"\xc2\x85"), (b"\xa8", b"\xe2\x80\xa8"), (b"\xa9", b"\xe2\x80\xa9"))  # (last byte, all)


def _only_newlines(data: bytes) -> bool:
    """No line break but ``\\n`` (single-byte scans first: a multi-byte search runs only when its last byte occurs)."""
    if any(b in data for b in _ASCII_BREAKS):
        return False
    return not any(last in data and seq in data for last, seq in _WIDE_BREAKS)


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

    def bounded(self, cap: int) -> tuple[list[str], list[int], tuple[int, int] | None, int]:
        """(lines, their line numbers, the lines left out (first, last) or None, the number of lines):
        at most ``cap`` lines, the first fifth and the end (where runs fail), as ``merge._bounded``."""
        d = self.data
        if not self.plain:
            return _bounded(self.lines(), cap)
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
        lines = _decode(d[:pos]).splitlines() + _decode(d[p + 1:]).splitlines()
        nos = list(range(1, head + 1)) + list(range(total - tail + 1, total + 1))
        return lines, nos, (head + 1, total - tail), total


def _bounded(lines: list[str], cap: int) -> tuple[list[str], list[int], tuple[int, int] | None, int]:
    nos = list(range(1, len(lines) + 1))
    if len(lines) <= cap:
        return lines, nos, None, len(lines)
    head = cap // 5
    tail = cap - head
    return lines[:head] + lines[-tail:], nos[:head] + nos[-tail:], (head + 1, len(lines) - tail), len(lines)


__all__ = ["FileText"]
