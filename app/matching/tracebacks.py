"""Python tracebacks and C++ ``what()`` messages in one rank's stream of lines.

`scan_stream` walks the stream once with one small handler per kind of line (a chain marker, a C++
``what()``, an IPython header, an mp.spawn child marker, a rich box, a plain traceback, frames whose
header was cut off).  Each handler either consumes lines and returns True or leaves the line to the
next.  Every look-ahead is bounded (``Budget``), and the patterns have no nested quantifiers on
overlapping classes, so the walk is linear in the paste.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from faultline.matching.lines import Frame, Line, PyException, line_indices
from faultline.matching.budget import spent

_TRACEBACK = "Traceback (most recent call last):"
# DataLoader workers and DataParallel replicas re-raise "Caught X in ..." and print the original after this
_ORIGINAL_TRACEBACK = "Original Traceback (most recent call last):"
# IPython / Jupyter: "ValueError                                Traceback (most recent call last)"
_IPY_TRACEBACK = re.compile(r"^([A-Za-z_][\w.]*)\s{2,}Traceback \(most recent call last\)")
# IPython 8 frames: "File /path/mod.py:310, in _lazy_init()" and "Cell In[3], line 1"
_IPY_FRAME = re.compile(r"^(?:File (\S.*?):(\d+), in (\S+?)(?:\(\))?$|Cell In\s?\[\d+\], line \d+)")
# torch.multiprocessing.spawn prints the child's traceback under this line, after ProcessRaisedException
_SPAWN_CHILD = re.compile(r"^-- Process (\d+) terminated with the following error:$")
# plain, loguru/better_exceptions ("> File ..." marks the failing frame), Windows paths
_FRAME = re.compile(r'^\s*(?:> )?File "([^"]+)", line (\d+), in (.+)$')
_EXC_LINE = re.compile(
    r"^((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Warning|Fault|Timeout))(?:: ?(.*))?$"
)
_CHAIN_CAUSE = "The above exception was the direct cause of the following exception:"
_CHAIN_DURING = "During handling of the above exception, another exception occurred:"
_WHAT = re.compile(r"^\s*what\(\):\s+(.*)$")
_CPP_RAISED = re.compile(r"^Exception raised from (\S+) at (\S+):(\d+)")
_CPP_FRAME = re.compile(r"^frame #\d+:")
# rich (Lightning, typer): a box around the frames; the exception line follows the box
_RICH_TOP = re.compile(r"^[╭┌+][─━-]+ ?Traceback \(most recent call last\) ?[─━-]+[╮┐+]$")
_RICH_BOTTOM = re.compile(r"^[╰└+][─━-]+[╯┘+]$")
_RICH_FRAME = re.compile(r"^[│|] ?(\S[^│|]*?):(\d+) in ([\w<>.]+) *[│|]?$")
# PowerShell wraps a native command's first stderr line in an error record
_PS_RECORD = re.compile(r"^(?:At line:\d+ char:\d+|\+ .*|\+ ?~+|\s*\+ (?:CategoryInfo|FullyQualifiedErrorId)\s*:.*)$")
# the raise statement of a source excerpt ("❱ 42 │     raise RuntimeError(...)" in rich boxes)
_RAISE = re.compile(r"^\s*(?:[│|]\s*)?(?:[❱>]\s*)?(?:\d+\s*[│|]\s*)?(?:[│|] {0,8}){0,12}raise\s+((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*(?:\((.*))?$")
_STRING = re.compile(r"""[frbFRB]{0,2}(["'])(.*?)(?:\1|$)""")  # unterminated: a paste cut mid-line

LIBRARY_MARKERS = ("site-packages", "dist-packages", "/lib/python", "<frozen", "torch/", "\\lib\\", "torch\\")


def is_library(path: str) -> bool:
    return any(s in path for s in LIBRARY_MARKERS)


def exception_line(text: str) -> tuple[str, str] | None:
    m = _EXC_LINE.match(text)
    return (m.group(1), (m.group(2) or "").strip()) if m else None


@dataclass
class Budget:
    """Look-ahead lines left for the whole log (hostile input: many headers with no exception)."""
    left: int

    def spend(self) -> bool:
        self.left -= 1
        if self.left & 511 == 0 and spent(0.7, "tracebacks"):  # the CPU budget (app/matching/budget.py)
            self.left = -1
        return self.left >= 0


# What the handlers of _Scanner.run look for, as plain text: the chain markers and "Exception raised
# from" hold "xception", a plain, rich or IPython header holds "Traceback (most", a frame 'File "',
# a C++ message "what()"; C++ frames start with "frame #", an mp.spawn child marker with "-- Process "
_HANDLED_STARTS = ("frame #", "-- Process ")
# every text a line must hold for the test in _Scanner.run to pass it to the handlers
_MARKERS = ("xception", "Traceback (most", 'File "', "what()", *_HANDLED_STARTS)


def _marked(stream: list[Line], joined: str | None = None) -> list[int]:
    """The positions of the lines that hold one of the markers the handlers look for, in order: found with
    str.find over the stream's texts joined (a C loop), not by testing each line in Python.  ``joined``: those
    texts joined by newlines already (the parse's, when the stream is the whole log)."""
    if joined is None:
        joined = "\n".join([ln.text for ln in stream])
    hits: set[int] = set()
    for marker in _MARKERS:
        at = joined.find(marker)
        while at >= 0:
            hits.add(at)
            end = joined.find("\n", at)  # one mark a line is enough: go on from the next line
            if end < 0:
                break
            at = joined.find(marker, end + 1)
    return sorted(set(line_indices(joined, hits).values()))  # two markers on one line: the line once


class _Scanner:
    def __init__(self, stream: list[Line], budget: Budget, joined: str | None = None):
        self.s = stream
        self.joined = joined
        self.n = len(stream)
        self.i = 0
        self.budget = budget
        self.found: list[PyException] = []
        self.pending_chain: str | None = None
        self.spawn_child: tuple[int, int] | None = None  # (process index, where its marker is) of the next traceback
        self.prev: PyException | None = None

    def run(self) -> list[PyException]:
        marked = _marked(self.s, self.joined)
        k = 0  # the next marked line to visit
        steps = 0
        while self.i < self.n:
            while k < len(marked) and marked[k] < self.i:
                k += 1
            if k == len(marked):
                break  # no line further on holds a marker: no handler would take one
            self.i = marked[k]
            steps += 1
            if steps & 511 == 511 and spent(0.75, "tracebacks"):
                break
            ln = self.s[self.i]
            t = ln.text
            # no handler takes (or marks) a line without one of its markers: most lines are skipped here
            if not t or not (("xception" in t or "Traceback (most" in t or 'File "' in t or "what()" in t
                              or t.startswith(_HANDLED_STARTS))
                             and (self._chain_marker(ln) or self._cpp(ln) or self._ipython_header(ln)
                                  or self._spawn_marker(ln) or self._rich_box(ln) or self._traceback(ln)
                                  or self._headless_frames(ln))):
                self.i += 1
        return self.found

    # -- handlers ---------------------------------------------------------
    def _chain_marker(self, ln: Line) -> bool:
        if ln.text not in (_CHAIN_CAUSE, _CHAIN_DURING):
            return False
        ln.kind = "chain"
        self.pending_chain = ln.text
        self.i += 1
        return True

    def _cpp(self, ln: Line) -> bool:
        t = ln.text
        if "what()" in t and (wm := _WHAT.match(t)):
            ln.kind = "what"
            self.found.append(PyException("C++ exception", wm.group(1), ln))
            self.i += 1
            return True
        if t.startswith("Exception raised from ") and _CPP_RAISED.match(t):
            ln.kind = "cpp"
        elif t.startswith("frame #") and _CPP_FRAME.match(t):
            ln.kind = "cppframe"
        return False

    def _ipython_header(self, ln: Line) -> bool:
        ipy = _IPY_TRACEBACK.match(ln.text) if "Traceback (most" in ln.text else None
        if not ipy:
            return False
        ln.kind = "traceback"  # the exception line is the first line further on that starts with the same type
        want = ipy.group(1)
        for k in range(self.i + 1, min(self.n, self.i + 400)):
            if not self.budget.spend() or _IPY_TRACEBACK.match(self.s[k].text):
                break
            exc = exception_line(self.s[k].text)
            if exc and exc[0] == want:
                # what lies between is the traceback's body: "File PATH:N, in f" / "Cell In[3], line 1" frames
                # and numbered source excerpts, never an error of its own (an excerpt may quote a message)
                frames: list[Frame] = []
                for body in self.s[self.i + 1:k]:
                    fm = _IPY_FRAME.match(body.text)
                    if fm:
                        body.kind = "frame"
                        if fm.group(1):
                            frames.append(Frame(fm.group(1), int(fm.group(2)), fm.group(3), is_library(fm.group(1))))
                    elif body.text:
                        body.kind = "code"
                self._add(self.s[k], exc, frames, None)
                self.i = k
                break
        self.i += 1
        return True

    def _spawn_marker(self, ln: Line) -> bool:
        m = _SPAWN_CHILD.match(ln.text) if ln.text.startswith("-- Process ") else None
        if not m:
            return False
        self.spawn_child = (int(m.group(1)), self.i)
        self.i += 1
        return True

    def _rich_box(self, ln: Line) -> bool:
        if "Traceback (most recent call last)" not in ln.text or not _RICH_TOP.match(ln.text):
            return False
        ln.kind = "traceback"
        frames: list[Frame] = []
        code: list[Line] = []
        self.i += 1
        while self.i < self.n and self.budget.spend():
            cur = self.s[self.i]
            if _RICH_BOTTOM.match(cur.text):
                cur.kind = "code"
                self.i += 1
                break
            fm = _RICH_FRAME.match(cur.text)
            if fm and fm.group(2).isdigit() and ("/" in fm.group(1) or "\\" in fm.group(1) or fm.group(1).endswith(".py")):
                cur.kind = "frame"
                frames.append(Frame(fm.group(1), int(fm.group(2)), fm.group(3), is_library(fm.group(1))))
            else:
                cur.kind = "code"
                code.append(cur)
            self.i += 1
        self._finish(frames, code, None)
        return True

    def _traceback(self, ln: Line) -> bool:
        if ln.text not in (_TRACEBACK, _ORIGINAL_TRACEBACK):
            return False
        original_of = self.prev if (ln.text == _ORIGINAL_TRACEBACK or self.spawn_child is not None) else None
        ln.kind = "traceback"
        self.i += 1
        frames, code = self._frames()
        self._finish(frames, code, original_of)
        return True

    def _headless_frames(self, ln: Line) -> bool:
        """Frames whose "Traceback" header was cut off (a paste that starts mid-traceback)."""
        if "File \"" not in ln.text or not _FRAME.match(ln.text):
            return False
        frames, code = self._frames()
        self._finish(frames, code, None)
        return True

    # -- helpers ----------------------------------------------------------
    def _frames(self) -> tuple[list[Frame], list[Line]]:
        frames: list[Frame] = []
        code: list[Line] = []
        while self.i < self.n:
            cur = self.s[self.i]
            fm = _FRAME.match(cur.text)
            if fm:
                cur.kind = "frame"
                frames.append(Frame(fm.group(1), int(fm.group(2)), fm.group(3), is_library(fm.group(1))))
                self.i += 1
                continue
            t = cur.text
            if not t:  # blank lines between frames (loguru, better_exceptions)
                j = self.i + 1
                while j < self.n and j - self.i <= 3 and not self.s[j].text:
                    j += 1
                if j < self.n and j - self.i <= 3 and _FRAME.match(self.s[j].text):
                    self.i = j
                    continue
                break
            if cur.indented and not _EXC_LINE.match(t) or set(t) <= set("^~ "):
                cur.kind = "code"
                code.append(cur)
                self.i += 1
                continue
            if t and _PS_RECORD.match(t):  # PowerShell's error record inside the traceback
                cur.kind = "code"
                self.i += 1
                continue
            break
        return frames, code

    def _finish(self, frames: list[Frame], code: list[Line], original_of: PyException | None) -> None:
        """After the frames: the exception line (blank lines skipped), else the ``raise`` of the excerpt."""
        child = self.spawn_child
        self.spawn_child = None
        k = self.i
        while k < self.n and not self.s[k].text:
            k += 1
        exc = exception_line(self.s[k].text) if k < self.n else None
        if exc is not None:
            line = self.s[k]
            self.i = k + 1
            self._continuation(k)
        else:
            raised = _raised(code)
            if raised is None:
                return
            line, exc = raised
        e = self._add(line, exc, frames, original_of)
        if child is not None:
            self._assign_rank(child, e)

    def _continuation(self, k: int) -> None:
        # an indented continuation belongs to the message ("\tMissing key(s) in state_dict: ...")
        j = k + 1
        while j < self.n and j - k <= 50 and self.s[j].indented and self.s[j].text and not _FRAME.match(self.s[j].text):
            self.s[j].block = self.s[k].no
            j += 1

    def _add(self, line: Line, exc: tuple[str, str], frames: list[Frame], original_of: PyException | None) -> PyException:
        line.kind = "exception"
        line.block = line.no
        e = PyException(exc[0], exc[1], line, frames)
        if original_of is not None:  # the wrapper was raised because of this one
            original_of.chained_from = e
            e.cause_of = original_of
        elif self.pending_chain and self.prev is not None:
            e.chained_from = self.prev
            self.prev.cause_of = e
        self.found.append(e)
        self.prev = e
        self.pending_chain = None
        return e

    def _assign_rank(self, child: tuple[int, int], e: PyException) -> None:
        """mp.spawn: the child's process index is its rank, for the lines of its traceback."""
        process, start = child
        for ln in self.s[start:self.i]:
            if ln.rank is None and (ln.block is None or ln.block == e.line.no):
                ln.rank = process
        e.line.rank = process


def _raised(code: list[Line]) -> tuple[Line, tuple[str, str]] | None:
    """A traceback pasted without its exception line: the last ``raise X(...)`` of the excerpt names it."""
    for ln in reversed(code[-6:]):
        m = _RAISE.match(ln.text)
        if not m or not _EXC_LINE.match(m.group(1)):
            continue
        sm = _STRING.search(m.group(2) or "")
        message = sm.group(2) if sm else ""
        ln.text = f"{m.group(1)}: {message}" if message else m.group(1)
        ln.indented = False
        return ln, (m.group(1), message)
    return None


def scan_stream(stream: list[Line], budget: Budget, joined: str | None = None) -> list[PyException]:
    return _Scanner(stream, budget, joined).run()
