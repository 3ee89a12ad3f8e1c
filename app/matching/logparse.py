"""Turn a pasted traceback or multi-rank log into structure.

What comes out: every line with its rank prefix and timestamp taken off,
the Python exceptions (type, message, chain, frames) per rank stream, C++
``what():`` messages, torchrun's ``ChildFailedError`` summary and versions the
log reveals.  Nothing here knows about the knowledge base.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from faultline.matching.budget import spent
from faultline.matching.decode import repair_text
from faultline.matching.lines import Frame, Line, LineKind, PyException  # noqa: F401 - re-exported
from faultline.matching.tracebacks import Budget, scan_stream

MAX_LINES = 20000
MAX_LINE_CHARS = 4000  # longer lines are scanned in pieces of at most this many characters
HEAD_LINES = 2000  # a paste over MAX_LINES keeps its first HEAD_LINES lines and its last lines

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
    r"(?:(?:[a-z][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,8}|\d+\.\d+\.\d+\.\d+): (?=\[|\S+:\d+:\d+ \[|Traceback|\s)"
    # a pod or host name and one space before a rank or stream tag: "train-ddp-7c9f-0 [rank1]: ",
    # "gpu-node-3 [stderr] [rank1]: "
    r"|[a-z][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,8} (?=\[(?:rank|default) ?\d{1,5}\]:|\[(?:stderr|stdout)\] ))"
)
_TS_PREFIXES = [
    # 2024-05-01 12:00:00,123 / [2024-05-01 12:00:00.123] / 2024-05-01T12:00:00Z
    re.compile(r"^\[?(\d{4})[-/](\d{2})[-/](\d{2})[ T_](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|[+-]\d{2}:?\d{2})?\]?[ \t]?"),
    # glog / c10: [E1203 12:00:00.123456789 ProcessGroupNCCL.cpp:1234] or W1203 12:00:00.123000 123 api.py:12]
    re.compile(r"^\[?[IWEF](\d{1,2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?: +\d+)? [\w/.-]+:\d+\]\s*"),
]
# Kubernetes CRI log lines ("<RFC3339 time> stderr F ", time taken by _TS_PREFIXES), docker compose ("trainer-1  | ")
_STREAM_PREFIX = re.compile(r"^(?:(?:stdout|stderr) [FP] |[a-z0-9][\w.-]{0,62}[-_]\d{1,6}\s{1,40}\| )")
_LEVEL_PREFIX = re.compile(r"^\[[IWEF] [\w.]+:\d+\]\s*")  # [E ProcessGroupNCCL.cpp:828] (torch<=2.1)
# Job runners and loggers: "[stderr] " tags, Ray workers "(RayTrainWorker pid=123, ip=10.0.0.1) ",
# kubectl logs --prefix "[pod/trainer-0/pytorch] ", Python logging "ERROR:root:" / "- name - ERROR - ",
# loguru "| ERROR    | module:function:42 - "
_RUNNER_PREFIX = re.compile(
    r"^(?:\[(?:stderr|stdout|STDERR|STDOUT)\]:? ?|<std(?:err|out)>:? ?|(?:stderr|stdout|STDERR|STDOUT): "
    r"|\((?:[^()=\s]{1,80}\s{1,4})?pid=\d{1,9}(?:,\s?[\w.-]{1,40}=[^,()\s]{1,80}){0,8}\) ?"
    r"|\[pod/[^\]\s/]{1,128}/[^\]\s]{1,128}\] ?"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]{1,80}:"
    r"|(?:- )?[\w.]{1,80} - (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - "
    r"|\| ?(?:TRACE|DEBUG|INFO|SUCCESS|WARNING|ERROR|CRITICAL) {0,4}\| ?[\w.<>-]{1,80}:[\w.<>-]{1,80}:\d{1,6} - )"
)
# PowerShell puts "python : " before the first line a native command writes to stderr
_PS_NATIVE = re.compile(r"^[\w.-]{1,64} : (?=Traceback|\S+Error\b|\S+Exception\b)")
# mp.spawn's ProcessExitedException: the process index is the rank that died
_PROCESS_EXIT = re.compile(r"process (\d+) terminated with (?:exit code (-?\d+)|signal (SIG[A-Z]+))")
_NCCL_LINE = re.compile(r"^(\S+):(\d+):(\d+) \[(\d+)\] NCCL (INFO|WARN|TRACE|ERROR)\b")

# CSI sequences and OSC strings (ended by BEL or ESC \\); an OSC scan stops at the next ESC, so it is linear
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_VERSION_HINTS = [  # (package, cheap substring test, pattern)
    ("nccl", "NCCL version", re.compile(r"NCCL version (\d+\.\d+\.\d+)")),
    ("python", "python3.", re.compile(r"python(3\.\d+)/(?:site|dist)-packages")),
    ("torch", "torch", re.compile(r"\btorch(?:==| version:? ?)(\d+\.\d+\.\d+)")),
    ("cuda", "CUDA Version", re.compile(r"CUDA Version: (\d+\.\d+)")),
]


@dataclass
class FailedRank:
    rank: int | None
    exitcode: int | None
    signal: str | None
    time: str | None
    first: bool  # listed under "Root Cause (first observed failure)"
    lines: tuple[int, int] | None = None  # the first and last line numbers of its record in the summary
    line: Line | None = None  # the record's exitcode line (else its rank line)


@dataclass
class ParsedLog:
    lines: list[Line]
    exceptions: list[PyException]
    failed_ranks: list[FailedRank]
    versions: dict[str, str]
    truncated: bool = False
    dropped: dict[str, int] = field(default_factory=dict)  # what was cut or split, and where
    encoding: str | None = None  # set when the text was repaired (UTF-16 read as 8-bit)
    # the lines' texts joined by newlines as they were read, before the traceback scan rewrote a bare
    # "raise X('msg')" as "X: msg" (which adds no word): a prefilter, where no line can hold a word
    joined: str = ""

    @functools.cached_property
    def ranks(self) -> list[int]:
        return sorted({ln.rank for ln in self.lines} - {None})

    # views that several readers want, made once (nothing changes a ParsedLog after parse_log)
    @functools.cached_property
    def texted(self) -> list[Line]:
        """The lines that hold any text."""
        return [ln for ln in self.lines if ln.text]

    @functools.cached_property
    def messages(self) -> list[Line]:
        """The lines that hold text and are no frame or source line of a traceback (a Python or C++ one)."""
        return [ln for ln in self.lines if ln.text and ln.kind not in ("frame", "code", "cppframe")]


def _ts_key(groups: tuple, has_year: bool) -> float:
    """A sortable time from a timestamp's groups: (year,) month, day, hours, minutes, seconds, fraction (only the
    fraction is ever missing)."""
    if has_year:
        _, month, day, hh, mm, ss, frac = groups
    else:
        month, day, hh, mm, ss, frac = groups
    return ((int(month) * 31 + int(day)) * 86400) + int(hh) * 3600 + int(mm) * 60 + int(ss) + (
        float("0." + frac) if frac else 0.0)


# Every prefix in one alternation, in the order they are tried (the first that matches wins, as a chain
# of .match calls would): one regex call per prefix instead of one per kind; the named group says which.
_PREFIX_KINDS = [("other", _STREAM_PREFIX), ("other", _RUNNER_PREFIX), ("other", _HOST_PREFIX), ("other", _PS_NATIVE),
                 ("rank", _RANK_PREFIX), ("ts0", _TS_PREFIXES[0]), ("ts1", _TS_PREFIXES[1]), ("other", _LEVEL_PREFIX)]
_ANY_PREFIX = re.compile("|".join(f"(?P<k{i}_{kind}>{rx.pattern.lstrip('^')})" for i, (kind, rx) in enumerate(_PREFIX_KINDS)))
_PREFIX_START = frozenset("[IWEFr0123456789(<|-" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# each alternative's own groups inside _ANY_PREFIX: (kind, numbers of its groups), read from the one match
_GROUPS_OF = {f"k{i}_{kind}": (kind, tuple(range(_ANY_PREFIX.groupindex[f"k{i}_{kind}"] + 1,
                                                  _ANY_PREFIX.groupindex[f"k{i}_{kind}"] + 1 + rx.groups)))
              for i, (kind, rx) in enumerate(_PREFIX_KINDS)}
# A text that starts with "[r" can only be taken by _RANK_PREFIX's first branch (no other alternative of
# _ANY_PREFIX begins with "[r"): the "[rankN]: " that torch's excepthook and every merged log set write
# is then read by this short pattern alone, and a "[r..." that is not one is no prefix at all.
_RANK_R = re.compile(r"\[rank\s*(\d+)\]:\s?")
# A text that starts with a digit, "[" and a digit, or [IWEF] (or "[" and one of them) and a digit may start with a
# timestamp; when _TS_PREFIXES takes one there, no alternative before it in _ANY_PREFIX takes that text (they want a
# letter, a bracketed word, a " - ", " : " or ": " after at most five digits, or a "|" after a blank: a timestamp
# holds none of them before the pattern has taken it), so it is taken off without the whole alternation
# (tests/test_logparse_prefixes.py checks the two agree).
_TS0, _TS1 = _TS_PREFIXES
_TS_START = frozenset("0123456789[IWEF")


# A text whose first word (no blank, no colon) is followed by blanks and then by anything but "[", "|",
# ":" or "-" holds no prefix of _ANY_PREFIX: a host, a logger's or a container's name, "stderr",
# "rank3", "INFO:root:" is one word that holds or is followed by ":", or is followed (after blanks) by
# "[", "|" or "-"; "stdout F " (CRI) and glog's "E1203 " are the exceptions and are tried in full.
# Most lines of a log are ordinary words after their prefixes ("step 12 | loss ..."): one short
# match instead of the whole alternation (tests/test_logparse_prefixes.py checks the two agree).
_NO_PREFIX = re.compile(r"(?![IWEF]\d)(?!(?:stdout|stderr|STDOUT|STDERR)\s)[A-Za-z][^\s:]{0,599}\s+[^\s\[|:-]")


def _strip(raw: str, cleared: bool = False) -> tuple[str, int | None, float | None]:
    """Remove host, rank, timestamp and log-level prefixes (in any order, repeatedly).  ``cleared``: the
    caller found that _NO_PREFIX does not match ``raw`` itself (it is not asked again)."""
    text = raw.rstrip("\r\n").lstrip("\x00")
    rank: int | None = None
    ts: float | None = None
    rounds = 8  # prefixes taken off at most
    ask = not cleared or len(text) != len(raw)
    if text[:5] == "[rank" and (m := _RANK_R.match(text)):  # the usual first prefix of a merged or torch log
        rank = int(m.group(1))
        text = text[m.end():]
        if not text or _NO_PREFIX.match(text):
            return text, rank, ts
        rounds = 7
        ask = True
    for _ in range(rounds):
        if not text or (c := text[0]) not in _PREFIX_START:
            break
        if c in _TS_START and (m := (_TS0 if c.isdigit() or (c == "[" and text[1:2].isdigit()) else _TS1).match(text)):
            # a timestamp: no alternative of _ANY_PREFIX before its own takes a text it takes (and _NO_PREFIX,
            # which wants a letter first and no "[IWEF]<digit>", takes none)
            if ts is None:
                ts = _ts_key(m.groups(), has_year=m.re is _TS0)
            text = text[m.end():]
            ask = True
            continue
        if not ask:
            ask = True
        elif _NO_PREFIX.match(text):
            break
        if text[0] == "[" and text[1:2] == "r":
            m = _RANK_R.match(text)
            if not m:
                break
            if rank is None:
                rank = int(m.group(1))
            text = text[m.end():]
            continue
        m = _ANY_PREFIX.match(text)
        if not m:
            break
        kind, groups = _GROUPS_OF[m.lastgroup]
        if kind == "rank" and rank is None:
            rank = int(next(g for g in m.group(*groups) if g is not None))
        elif kind in ("ts0", "ts1") and ts is None:
            ts = _ts_key(m.group(*groups), has_year=kind == "ts0")
        text = text[m.end():]
    return text, rank, ts


_BOX_END = frozenset("│╮╯┐┘|+")


def _unwrap(raw_lines: list[str]) -> list[str]:
    """Re-join a paste hard-wrapped at a fixed terminal width (e.g. 80 columns)."""
    # a drawn box (rich) has lines of one width too
    lengths = Counter([n for r in raw_lines if (n := len(r)) >= 60 and r[-1] not in _BOX_END])
    if not lengths:
        return raw_lines
    width, count = max(lengths.items(), key=lambda kv: (kv[1], kv[0]))
    if count < 3 or width != max(lengths) or count < sum(lengths.values()) * 0.5:
        return raw_lines
    if _records_of_one_width(raw_lines, width):
        return raw_lines
    out: list[str] = []
    buf = ""
    for r in raw_lines:
        buf += r
        if len(r) != width or len(buf) > MAX_LINE_CHARS or r[-1:] in _BOX_END:
            out.append(buf)
            buf = ""
    if buf:
        out.append(buf)
    return out


def _records_of_one_width(raw_lines: list[str], width: int) -> bool:
    """Lines of one width that are each a record of their own (a logger's fixed format: the line after
    one of them starts with a timestamp or a rank prefix again), not the pieces of a wrapped line."""
    pairs = [(raw_lines[k], raw_lines[k + 1]) for k in range(len(raw_lines) - 1) if len(raw_lines[k]) == width][:200]
    starts = sum(1 for r, nxt in pairs if (nxt[:1] in _PREFIX_START and _is_record_prefix(nxt)) or _same_tag(r, nxt))
    return starts * 2 > len(pairs)


def _same_tag(line: str, nxt: str) -> bool:
    """The next line starts with this line's first word (a host or job tag, a date): a record of its own."""
    tag = line.split(" ", 1)[0]
    return len(tag) >= 3 and nxt.startswith(tag + " ")


def _is_record_prefix(raw: str) -> bool:
    m = _ANY_PREFIX.match(raw)
    return m is not None and m.lastgroup.split("_", 1)[1] in ("rank", "ts0", "ts1")


def _bound_lines(raw_lines: list[str]) -> tuple[list[tuple[int, str]], int]:
    """Number the lines; over MAX_LINES keep the head (the first error is often at the top) and the tail."""
    numbered = list(enumerate(raw_lines, 1))
    if len(numbered) <= MAX_LINES:
        return numbered, 0
    tail = MAX_LINES - HEAD_LINES
    return numbered[:HEAD_LINES] + numbered[-tail:], len(numbered) - MAX_LINES


def _pieces(text: str) -> list[str]:
    """A line over MAX_LINE_CHARS, in pieces cut at a space where there is one near the limit."""
    out: list[str] = []
    start = 0
    while len(text) - start > MAX_LINE_CHARS:
        end = start + MAX_LINE_CHARS
        cut = text.rfind(" ", end - 1000, end)
        end = cut + 1 if cut > start else end
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def _versions(joined: str) -> dict[str, str]:
    """Each package's version from the first line that names it (in the order of the lines), read from the
    lines' texts joined by newlines: only the lines that hold a hint's literal (which every match of its
    pattern holds) are searched, in order."""
    found: list[tuple[int, str, str]] = []
    for pkg, probe, rx in _VERSION_HINTS:
        at = joined.find(probe)
        while at >= 0:
            start = joined.rfind("\n", 0, at) + 1
            end = joined.find("\n", at)
            end = len(joined) if end < 0 else end
            if vm := rx.search(joined, start, end):
                found.append((joined.count("\n", 0, start), pkg, vm.group(1)))  # its line
                break
            at = joined.find(probe, end)
    return {pkg: v for _k, pkg, v in sorted(found)}


def _within_budget(numbered: list[tuple[int, str]], i: int) -> tuple[list[tuple[int, str]], int]:
    """Every 256 lines: when 60% of the CPU budget went into reading lines, keep the head read so far
    and a tail (the end of a log is where runs fail) of about a third of its size; skip the middle."""
    if i % 256 or i == 0 or not spent(0.6):
        return numbered, 0
    tail = max(100, i * 3 // 8)
    if i + tail >= len(numbered):
        return numbered, 0
    spent(0.6, "lines")  # records that this step stopped early
    return numbered[:i] + numbered[-tail:], len(numbered) - i - tail


WRAP_MIN_CHARS = 70  # a line this long whose prefixes a next, bare line lacks may have been hard-wrapped
# what starts a record of its own (never the tail of a wrapped line): a traceback, a frame, an exception line
_RECORD_START = re.compile(
    r"^(?:Traceback \(|File \"|During handling|The above exception|[\[<(=+*#>|-]"
    r"|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Failure|Warning|Fault|Timeout)\b)"
)


_ENDS_RECORD = frozenset(".!?:;)]}'\"")  # a line that ends a sentence or a bracket was not cut by a wrap


def _wrapped_on(prev: Line, raw: str, stripped: str, rank: int | None, ts: float | None) -> bool:
    """A bare line (no prefix at all) right after a long line that carried a rank prefix: the tail of
    that line, hard-wrapped by a log collector or a terminal that prefixes only the first piece."""
    return (rank is None and ts is None and prev.rank is not None and stripped == raw.rstrip("\r\n")
            and len(prev.raw) >= WRAP_MIN_CHARS and prev.kind == "text" and raw[:1] not in ("", " ", "\t")
            and prev.text[-1:] not in _ENDS_RECORD
            and len(prev.text) + len(raw) <= MAX_LINE_CHARS and not _RECORD_START.match(raw))


def _join_wrapped(prev: Line, raw: str, sep: str) -> None:
    tail = raw.rstrip()
    prev.raw += sep + tail
    prev.text += sep + tail


_BLANKS = (" ", "\t")


def _make_lines(numbered: list[tuple[int, str]], ansi: bool = True, nccl: bool = True
                ) -> tuple[list[Line], int, tuple[int, int, int] | None, bool]:
    """The lines, how many were split, what the CPU budget skipped, and whether any line has a timestamp.
    ``ansi`` / ``nccl``: whether the text may hold an escape character / " NCCL " at all (a caller that read
    the whole text once tells; where it cannot, no line is read for them in vain but the answer is the same)."""
    lines: list[Line] = []
    append = lines.append
    timed = False
    split = 0
    skipped = None
    # The prefix is learnt from the paste: a line whose only prefix was "[rankN]: " (as torch writes every
    # line of a rank) teaches that literal; the next line that starts with it and has no further prefix
    # (_NO_PREFIX right after it, or a character no prefix starts with) is read without _strip, with the
    # answer _strip gives: its own first step takes "[rankN]:" and one blank, and it stops where
    # _NO_PREFIX holds or no prefix can start.  When the learnt prefix took no blank after the colon, a
    # line with a blank there loses that one blank, and what follows it is read the same way.  A line
    # that starts with no prefix character, or with a word that _NO_PREFIX clears, has no prefix at all.
    learnt, learnt_len, learnt_rank, learnt_bare = "\n", 1, None, True  # no line holds "\n"
    no_prefix = _NO_PREFIX.match
    starts = _PREFIX_START
    i = 0
    n = len(numbered)
    prev_raw = ""
    while i < n:
        if skipped is None and i:  # every 256 lines (the CPU budget, app/matching/budget.py)
            numbered, n_skipped = _within_budget(numbered, i)
            if n_skipped:
                skipped = (n_skipped, numbered[i - 1][0] + 1, numbered[i][0] - 1)
                n = len(numbered)
        end = min(n, i + 256)
        for no, raw in numbered[i:end]:
            orig = raw
            if ansi and "\x1b" in raw:
                raw = _ANSI.sub("", raw)
            stripped = None
            if raw.startswith(learnt):
                c = raw[learnt_len:learnt_len + 1]
                if not c or no_prefix(raw, learnt_len) or (c not in starts and not (learnt_bare and c.isspace())):
                    stripped, rank, ts = raw[learnt_len:], learnt_rank, None
                elif learnt_bare and c.isspace() and (not (d := raw[learnt_len + 1:learnt_len + 2]) or d not in starts
                                                      or no_prefix(raw, learnt_len + 1)):
                    stripped, rank, ts = raw[learnt_len + 1:], learnt_rank, None
            if stripped is None:
                if (raw[:1] not in starts and raw[:1] != "\x00") or no_prefix(raw):
                    stripped, rank, ts = raw, None, None
                else:
                    stripped, rank, ts = _strip(raw, cleared=True)
                    if ts is not None:
                        timed = True
                    elif rank is not None and (m := _RANK_R.match(raw)) and m.end() == len(raw) - len(stripped):
                        learnt, learnt_len, learnt_rank = raw[:m.end()], m.end(), rank
                        learnt_bare = raw[m.end() - 1] == ":"  # no blank taken after it
            if rank is None and ts is None and lines and lines[-1].rank is not None \
                    and _wrapped_on(lines[-1], raw, stripped, rank, ts):
                # a wrap at a space leaves the space at the end of the first piece (or starts the next with it)
                _join_wrapped(lines[-1], raw, " " if prev_raw.rstrip("\r\n")[-1:] in (" ", "\t") else "")
                prev_raw = orig
                continue
            prev_raw = orig
            if len(stripped) <= MAX_LINE_CHARS:  # the common case: one line, one Line
                text = stripped.strip()
                ln = Line(no, raw.rstrip(), text, rank, ts, stripped[:1] in _BLANKS)
                if nccl and " NCCL " in text and _NCCL_LINE.match(text):
                    ln.kind = "nccl"
                append(ln)
                continue
            pieces = _pieces(stripped)
            split += len(pieces) > 1
            for k, piece in enumerate(pieces):
                ln = Line(no=no, raw=piece.rstrip(), text=piece.strip(), rank=rank,
                          ts=ts, indented=k == 0 and piece[:1] in _BLANKS)
                if " NCCL " in ln.text and _NCCL_LINE.match(ln.text):
                    ln.kind = "nccl"
                append(ln)
        i = end
    return lines, split, skipped, timed


# Ray Train names each worker process's rank once, at start-up:
# "(TorchTrainer pid=1, ip=...) - (node_id=..., ip=10.0.3.17, pid=220871) world_rank=0, local_rank=0, node_rank=0"
_RAY_WORLD_RANK = re.compile(r"\bpid=(\d{1,9})\) world_rank=(\d{1,6})\b")
_RAY_WORKER_PID = re.compile(r"^\((?:[^()=\s]{1,80}\s{1,4})?pid=(\d{1,9})[,)]")


def _ray_ranks(lines: list[Line]) -> None:
    """Give the lines of a Ray worker ("(RayTrainWorker pid=N, ip=...) ...") the world rank Ray gave pid N."""
    ranks = {m.group(1): int(m.group(2)) for ln in lines if "world_rank=" in ln.text
             for m in [_RAY_WORLD_RANK.search(ln.text)] if m}
    if not ranks:
        return
    for ln in lines:
        if ln.rank is None and ln.raw[:1] == "(" and (m := _RAY_WORKER_PID.match(ln.raw)) and m.group(1) in ranks:
            ln.rank = ranks[m.group(1)]


def _effective_times(lines: list[Line]) -> None:
    last_by_rank: dict[int | None, float] = {}
    last_any = 0.0
    for ln in lines:
        if ln.ts is not None:
            ln.ets = last_by_rank[ln.rank] = last_any = ln.ts
        else:
            ln.ets = last_by_rank.get(ln.rank, last_any)


# parse_log's answer for one text object, kept while a caller that parses that same text twice asks
# (app/logsets: the match, then the cross-file analysis); nothing changes a ParsedLog after parse_log
_REUSE: contextvars.ContextVar[list | None] = contextvars.ContextVar("faultline_parse_reuse", default=None)


@contextlib.contextmanager
def reuse_parse(text: str) -> Iterator[None]:
    """Within the block, parse_log(text) for this very ``text`` object parses it once and then gives the
    same ParsedLog again (unless the CPU budget cut that parse short: then it parses again)."""
    token = _REUSE.set([text, None])
    try:
        yield
    finally:
        _REUSE.reset(token)


def parse_log(text: str) -> ParsedLog:
    slot = _REUSE.get()
    if slot is None or slot[0] is not text:
        return _parse_log(text)
    if slot[1] is None:
        parsed = _parse_log(text)
        if "skipped_lines" in parsed.dropped:
            return parsed
        slot[1] = parsed
    return slot[1]


def _parse_log(text: str) -> ParsedLog:
    text, repaired = repair_text(text)
    raw_lines = text.splitlines()
    unwrapped = _unwrap(raw_lines)
    numbered, dropped_lines = _bound_lines(unwrapped)
    # the text is read once for what only some lines hold (a line re-joined from a wrap may hold it alone)
    ansi = "\x1b" in text
    lines, split, skipped, timed = _make_lines(numbered, ansi, ansi or unwrapped is not raw_lines or " NCCL " in text)
    # what only a few logs hold is looked for line by line only where their lines hold its words (the
    # traceback scan below rewrites only a bare "raise X('msg')" line, as "X: msg": it adds none of them)
    texts = "\n".join([ln.text for ln in lines])
    versions = _versions(texts)
    if "world_rank=" in texts:
        _ray_ranks(lines)
    if timed:  # without a timestamp every line's effective time stays 0.0
        _effective_times(lines)
    exceptions = _tracebacks(lines, texts)
    dropped = {}
    if dropped_lines:
        dropped = {"lines": dropped_lines, "from_line": HEAD_LINES + 1, "to_line": HEAD_LINES + dropped_lines}
    if split:
        dropped["long_lines_split"] = split
    if skipped:  # the CPU budget ran out while reading lines (app/matching/budget.py)
        dropped.update(skipped_lines=skipped[0], skipped_from_line=skipped[1], skipped_to_line=skipped[2])
    failed = _failed_ranks(lines) if "Failures:" in texts or "Root Cause (" in texts else []
    if not failed and "terminated with" in texts:
        failed = _spawn_exits(lines)
    parsed = ParsedLog(lines, exceptions, failed, versions, bool(dropped_lines), joined=texts)
    parsed.dropped = dropped
    parsed.encoding = repaired
    return parsed


def _streams(lines: list[Line]) -> dict[int | None, list[Line]]:
    ranks = {ln.rank for ln in lines}
    if len(ranks) == 1:  # one rank's log (or none named): one stream
        return {ranks.pop(): lines}
    out: dict[int | None, list[Line]] = {}
    for ln in lines:
        out.setdefault(ln.rank, []).append(ln)
    return out


def _tracebacks(lines: list[Line], joined: str | None = None) -> list[PyException]:
    """Find Python tracebacks and C++ what() messages in every rank's stream (app/matching/tracebacks.py).
    ``joined``: the lines' texts joined by newlines, reused when the log is one stream."""
    budget = Budget(MAX_LINES)  # look-ahead lines, shared by the whole log (hostile input)
    found: list[PyException] = []
    for stream in _streams(lines).values():
        found += scan_stream(stream, budget, joined if stream is lines else None)
    return found


_FAILURES_HDR = re.compile(r"^(Failures|Root Cause \(first observed failure\)):")
_FIELD = re.compile(r"^(time|host|rank|exitcode|error_file|traceback)\s*:\s*(.*)$")


def _failed_ranks(lines: list[Line]) -> list[FailedRank]:
    """Read torchrun's ChildFailedError summary (torch.distributed.elastic)."""
    out: list[FailedRank] = []
    section: str | None = None
    cur: dict[str, str] | None = None
    span: list[Line] = []

    def flush():
        nonlocal cur
        if cur and "rank" in cur and span:
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
                    lines=(span[0].no, span[-1].no),
                    line=next((x for x in span if x.text.startswith("exitcode")), span[0]),
                )
            )
        cur = None
        span.clear()

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
            span.append(ln)
            continue
        if t.startswith("=====") and cur is not None:
            flush()
    flush()
    return out


def _spawn_exits(lines: list[Line]) -> list[FailedRank]:
    """torch.multiprocessing.spawn: "process 1 terminated with signal SIGKILL" names the process (rank) that died."""
    out: list[FailedRank] = []
    for ln in lines:
        if "terminated with" in ln.text and (m := _PROCESS_EXIT.search(ln.text)):
            out.append(FailedRank(rank=int(m.group(1)), exitcode=int(m.group(2)) if m.group(2) else None,
                                  signal=m.group(3), time=None, first=not out))
    return out
