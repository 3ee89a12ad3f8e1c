"""Turn a pasted traceback or multi-rank log into structure.

What comes out: every line with its rank prefix and timestamp taken off,
the Python exceptions (type, message, chain, frames) per rank stream, C++
``what():`` messages, torchrun's ``ChildFailedError`` summary and versions the
log reveals.  Nothing here knows about the knowledge base.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

MAX_LINES = 20000
MAX_LINE_CHARS = 4000

# Prefixes a launcher or logger puts in front of a line, removed repeatedly.
# [rank3]: (torch>=2.3 excepthook, c10 logs) | [default0]: (torchrun --tee) | [1,3]<stderr>: or
# [1,mpirank:3,algo-2]<stderr>: (mpirun, SageMaker)
_RANK_PREFIX = re.compile(
    r"^(?:\[(?:rank|Rank|RANK)\s*(\d+)\]:\s?|\[default(\d+)\]:\s?|\[1,(?:mpirank:)?(\d+)(?:,[^\]]*)?\]<std(?:out|err)>:\s?"
    r"|rank(\d+):\s|(\d{1,5}): )"  # ... | rank3: | srun --label "3: "
)
# "worker-1: " (pdsh / DeepSpeed launcher): lowercase host names only, so "RuntimeError: [" is never taken
_HOST_PREFIX = re.compile(
    r"^(?!(?:error|warning|warn|info|debug|fatal|note|hint|caused|from|at|in)\b)"
    r"(?:[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*|\d+\.\d+\.\d+\.\d+): (?=\[|\S+:\d+:\d+ \[|Traceback|\s)"
)
_TS_PREFIXES = [
    # 2024-05-01 12:00:00,123 / [2024-05-01 12:00:00.123] / 2024-05-01T12:00:00Z
    re.compile(r"^\[?(\d{4})-(\d{2})-(\d{2})[ T_](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*"),
    # glog / c10: [E1203 12:00:00.123456789 ProcessGroupNCCL.cpp:1234] or W1203 12:00:00.123000 123 api.py:12]
    re.compile(r"^\[?[IWEF](\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?: +\d+)? [\w/.-]+:\d+\]\s*"),
]
# Kubernetes CRI log lines ("<RFC3339 time> stderr F ", time taken by _TS_PREFIXES), docker compose ("trainer-1  | ")
_STREAM_PREFIX = re.compile(r"^(?:(?:stdout|stderr) [FP] |[a-z0-9][\w.-]*[-_]\d+\s+\| )")
_LEVEL_PREFIX = re.compile(r"^\[[IWEF] [\w.]+:\d+\]\s*")  # [E ProcessGroupNCCL.cpp:828] (torch<=2.1)
_NCCL_LINE = re.compile(r"^(\S+):(\d+):(\d+) \[(\d+)\] NCCL (INFO|WARN|TRACE|ERROR)\b")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_TRACEBACK = "Traceback (most recent call last):"
# IPython / Jupyter: "ValueError                                Traceback (most recent call last)"
_IPY_TRACEBACK = re.compile(r"^([A-Za-z_][\w.]*)\s{2,}Traceback \(most recent call last\)")
# DataLoader workers and DataParallel replicas re-raise "Caught X in ..." and print the original after this
_ORIGINAL_TRACEBACK = "Original Traceback (most recent call last):"
# torch.multiprocessing.spawn prints the child's traceback under this line, after ProcessRaisedException
_SPAWN_CHILD = re.compile(r"^-- Process \d+ terminated with the following error:$")
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (.+)$')
_EXC_LINE = re.compile(
    r"^((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Warning|Fault|Timeout))(?:: ?(.*))?$"
)
_CHAIN_CAUSE = "The above exception was the direct cause of the following exception:"
_CHAIN_DURING = "During handling of the above exception, another exception occurred:"
_WHAT = re.compile(r"^\s*what\(\):\s+(.*)$")
_CPP_RAISED = re.compile(r"^Exception raised from (\S+) at (\S+):(\d+)")
_CPP_FRAME = re.compile(r"^frame #\d+:")
_VERSION_HINTS = [  # (package, cheap substring test, pattern)
    ("nccl", "NCCL version", re.compile(r"NCCL version (\d+\.\d+\.\d+)")),
    ("python", "python3.", re.compile(r"python(3\.\d+)/(?:site|dist)-packages")),
    ("torch", "torch", re.compile(r"\btorch(?:==| version:? ?)(\d+\.\d+\.\d+)")),
    ("cuda", "CUDA Version", re.compile(r"CUDA Version: (\d+\.\d+)")),
]


@dataclass
class Line:
    no: int  # 1-based line number in the paste
    raw: str
    text: str  # prefixes removed
    rank: int | None = None
    ts: float | None = None  # sortable within one log (month, day, seconds)
    indented: bool = False  # the text (after prefixes) started with whitespace
    block: int | None = None  # for an exception's message lines: the line number of the exception line
    ets: float = 0.0  # effective time: own timestamp, else the last one seen before it (same rank first)
    kind: str = "text"  # text | frame | code | traceback | exception | what | cpp | cppframe | nccl | chain


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


@dataclass
class FailedRank:
    rank: int | None
    exitcode: int | None
    signal: str | None
    time: str | None
    first: bool  # listed under "Root Cause (first observed failure)"


@dataclass
class ParsedLog:
    lines: list[Line]
    exceptions: list[PyException]
    failed_ranks: list[FailedRank]
    versions: dict[str, str]
    truncated: bool = False

    @property
    def ranks(self) -> list[int]:
        return sorted({ln.rank for ln in self.lines if ln.rank is not None})


def _ts_key(groups: tuple, has_year: bool) -> float:
    vals = [int(g) if g else 0 for g in groups]
    if has_year:
        _, month, day, hh, mm, ss = vals[:6]
        frac = groups[6] or "0"
    else:
        month, day, hh, mm, ss = vals[:5]
        frac = groups[5] or "0"
    return ((month * 31 + day) * 86400) + hh * 3600 + mm * 60 + ss + float("0." + frac)


_ANY_PREFIX = re.compile(
    "|".join(f"(?:{rx.pattern.lstrip('^')})"
             for rx in [_HOST_PREFIX, _STREAM_PREFIX, _RANK_PREFIX, *_TS_PREFIXES, _LEVEL_PREFIX])
)
_PREFIX_START = frozenset("[IWEFr0123456789" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _strip(raw: str) -> tuple[str, int | None, float | None]:
    """Remove host, rank, timestamp and log-level prefixes (in any order, repeatedly)."""
    text = raw.rstrip("\r\n").lstrip("\x00")
    rank: int | None = None
    ts: float | None = None
    for _ in range(8):
        if not text or text[0] not in _PREFIX_START or not _ANY_PREFIX.match(text):
            break
        m = _STREAM_PREFIX.match(text) or _HOST_PREFIX.match(text)
        if m:
            text = text[m.end():]
            continue
        m = _RANK_PREFIX.match(text)
        if m:
            if rank is None:
                rank = int(next(g for g in m.groups() if g is not None))
            text = text[m.end():]
            continue
        m = _TS_PREFIXES[0].match(text) or _TS_PREFIXES[1].match(text)
        if m:
            if ts is None:
                ts = _ts_key(m.groups(), has_year=(m.re is _TS_PREFIXES[0]))
            text = text[m.end():]
            continue
        m = _LEVEL_PREFIX.match(text)
        if not m:
            break
        text = text[m.end():]
    return text, rank, ts


def _is_library(path: str) -> bool:
    return any(s in path for s in ("site-packages", "dist-packages", "/lib/python", "<frozen", "torch/"))


def _unwrap(raw_lines: list[str]) -> list[str]:
    """Re-join a paste hard-wrapped at a fixed terminal width (e.g. 80 columns)."""
    lengths: dict[int, int] = {}
    for r in raw_lines:
        if len(r) >= 60:
            lengths[len(r)] = lengths.get(len(r), 0) + 1
    if not lengths:
        return raw_lines
    width, count = max(lengths.items(), key=lambda kv: (kv[1], kv[0]))
    if count < 3 or width != max(lengths) or count < sum(lengths.values()) * 0.5:
        return raw_lines
    out: list[str] = []
    buf = ""
    for r in raw_lines:
        buf += r
        if len(r) != width or len(buf) > MAX_LINE_CHARS:
            out.append(buf)
            buf = ""
    if buf:
        out.append(buf)
    return out


def parse_log(text: str) -> ParsedLog:
    raw_lines = _unwrap(text.splitlines())
    truncated = len(raw_lines) > MAX_LINES
    if truncated:  # keep the end: that is where errors are
        raw_lines = raw_lines[-MAX_LINES:]
    lines: list[Line] = []
    versions: dict[str, str] = {}
    for i, raw in enumerate(raw_lines, 1):
        if len(raw) > MAX_LINE_CHARS:
            raw = raw[:MAX_LINE_CHARS]
        if "\x1b" in raw:
            raw = _ANSI.sub("", raw)
        stripped, rank, ts = _strip(raw)
        ln = Line(no=i, raw=raw.rstrip(), text=stripped.strip(), rank=rank, ts=ts,
                  indented=stripped[:1] in (" ", "\t"))
        m = _NCCL_LINE.match(ln.text)
        if m:
            ln.kind = "nccl"
        for pkg, probe, rx in _VERSION_HINTS:
            if pkg not in versions and probe in ln.text:
                vm = rx.search(ln.text)
                if vm:
                    versions[pkg] = vm.group(1)
        lines.append(ln)
    last_by_rank: dict[int | None, float] = {}
    last_any = 0.0
    for ln in lines:
        if ln.ts is not None:
            ln.ets = last_by_rank[ln.rank] = last_any = ln.ts
        else:
            ln.ets = last_by_rank.get(ln.rank, last_any)
    exceptions = _tracebacks(lines)
    return ParsedLog(lines, exceptions, _failed_ranks(lines), versions, truncated)


def _streams(lines: list[Line]) -> dict[int | None, list[Line]]:
    out: dict[int | None, list[Line]] = {}
    for ln in lines:
        out.setdefault(ln.rank, []).append(ln)
    return out


def _tracebacks(lines: list[Line]) -> list[PyException]:
    """Find Python tracebacks and C++ what() messages in every rank's stream."""
    found: list[PyException] = []
    budget = [MAX_LINES]  # look-ahead lines for IPython headers, shared by the whole log (hostile input)
    for stream in _streams(lines).values():
        pending_chain: str | None = None
        spawn_child = False
        prev: PyException | None = None
        i = 0
        n = len(stream)
        while i < n:
            ln = stream[i]
            t = ln.text
            if t in (_CHAIN_CAUSE, _CHAIN_DURING):
                ln.kind = "chain"
                pending_chain = t
                i += 1
                continue
            wm = _WHAT.match(t)
            if wm:
                ln.kind = "what"
                found.append(PyException("C++ exception", wm.group(1), ln))
                i += 1
                continue
            if _CPP_RAISED.match(t):
                ln.kind = "cpp"
            elif _CPP_FRAME.match(t):
                ln.kind = "cppframe"
            ipy = _IPY_TRACEBACK.match(t)
            if ipy:  # the exception line is the first line further on that starts with the same type
                ln.kind = "traceback"
                want = ipy.group(1)
                for k in range(i + 1, min(n, i + 400)):
                    budget[0] -= 1
                    if budget[0] < 0 or _IPY_TRACEBACK.match(stream[k].text):
                        break
                    em = _EXC_LINE.match(stream[k].text)
                    if em and em.group(1) == want:
                        stream[k].kind = "exception"
                        stream[k].block = stream[k].no
                        exc = PyException(em.group(1), (em.group(2) or "").strip(), stream[k])
                        found.append(exc)
                        prev = exc
                        i = k
                        break
                i += 1
                continue
            if _SPAWN_CHILD.match(t):
                spawn_child = True
                i += 1
                continue
            if t not in (_TRACEBACK, _ORIGINAL_TRACEBACK):
                i += 1
                continue
            original_of = prev if (t == _ORIGINAL_TRACEBACK or spawn_child) else None
            spawn_child = False
            ln.kind = "traceback"
            frames: list[Frame] = []
            i += 1
            while i < n:
                fm = _FRAME.match(stream[i].text)
                if fm:
                    stream[i].kind = "frame"
                    frames.append(Frame(fm.group(1), int(fm.group(2)), fm.group(3), _is_library(fm.group(1))))
                    i += 1
                    continue
                nxt = stream[i]
                if nxt.text and (nxt.indented and not _EXC_LINE.match(nxt.text) or set(nxt.text) <= set("^~ ")):
                    nxt.kind = "code"
                    i += 1
                    continue
                break
            # the exception line: first line matching "Type: message" (skip blank lines)
            while i < n and not stream[i].text:
                i += 1
            if i < n:
                em = _EXC_LINE.match(stream[i].text)
                if em:
                    stream[i].kind = "exception"
                    stream[i].block = stream[i].no
                    exc = PyException(em.group(1), (em.group(2) or "").strip(), stream[i], frames)
                    # an indented continuation belongs to the message ("\tMissing key(s) in state_dict: ...")
                    k = i + 1
                    while k < n and k - i <= 50 and stream[k].indented and stream[k].text and not _FRAME.match(stream[k].text):
                        stream[k].block = stream[i].no
                        k += 1
                    if original_of is not None:  # the wrapper was raised because of this one
                        original_of.chained_from = exc
                        exc.cause_of = original_of
                    elif pending_chain and prev is not None:
                        exc.chained_from = prev
                        prev.cause_of = exc
                    found.append(exc)
                    prev = exc
                    pending_chain = None
                    i += 1
                    continue
    return found


_FAILURES_HDR = re.compile(r"^(Failures|Root Cause \(first observed failure\)):")
_FIELD = re.compile(r"^(time|host|rank|exitcode|error_file|traceback)\s*:\s*(.*)$")


def _failed_ranks(lines: list[Line]) -> list[FailedRank]:
    """Read torchrun's ChildFailedError summary (torch.distributed.elastic)."""
    out: list[FailedRank] = []
    section: str | None = None
    cur: dict[str, str] | None = None

    def flush():
        nonlocal cur
        if cur and "rank" in cur:
            rm = re.match(r"(-?\d+)", cur["rank"])
            em = re.match(r"(-?\d+)", cur.get("exitcode", ""))
            sig = re.search(r"Signal (\d+) \((\w+)\)", cur.get("traceback", "")) or re.search(
                r"\b(SIG[A-Z]+)\b", cur.get("traceback", "") + cur.get("exitcode", "")
            )
            out.append(
                FailedRank(
                    rank=int(rm.group(1)) if rm else None,
                    exitcode=int(em.group(1)) if em else None,
                    signal=(sig.group(sig.lastindex) if sig else None),
                    time=cur.get("time"),
                    first=(section or "").startswith("Root Cause"),
                )
            )
        cur = None

    for ln in lines:
        t = ln.text
        hm = _FAILURES_HDR.match(t)
        if hm:
            flush()
            section = hm.group(1)
            continue
        if section is None:
            continue
        if re.match(r"^\[\d+\]:$", t):
            flush()
            cur = {}
            continue
        fm = _FIELD.match(t)
        if fm and cur is not None:
            cur[fm.group(1)] = fm.group(2)
            continue
        if t.startswith("=====") and cur is not None:
            flush()
    flush()
    return out
