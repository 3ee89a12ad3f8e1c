"""A kill or an out-of-memory named in words: a report's title or a sentence, and the shell's own kill
report in the forms a terminal leaves it.

Many failure reports carry no log line at all, only what the user saw: "Training gets Killed",
"训练进程被killed", "the process was killed by the OOM killer", "OOM in loss.backward()", "总是出现OOM".
What they name is still the lowest layer's verdict (the kernel's kill, the allocator's OOM), and the KB
knows the entry for it.  A short report (a title and a few lines, no traceback, nothing a signature
recognised) that names one of them is answered with that entry, as a short paste: at the capped
short-paste confidence and saying so.  Which entry is the KB's say: the entries that explain a SIGKILL
(exits.py) for a kill, the entry torch's CUDA OOM line matches for an out-of-memory.

- A kill: the shell's word in a sentence or a title ("gets Killed", "被Killed掉", quoted "Killed"),
  "killed by the OOM killer / the system", the Chinese shell's "已杀死".  Not a kill the user made
  (Ctrl-C, "killed it manually", scancel, a time limit).
- An OOM: "OOM", "out of memory", "显存不足", in words that report it (a run, a failure: not a heading,
  not advice, not another framework's allocator, whose OOMs the KB's negatives hold).  Host memory
  named (RAM, the OOM killer) reads as the host's kill; otherwise, as in most training reports, the GPU's.

Apart from short reports, the shell's kill report at the end of a log in two more forms: the
Chinese-locale "已杀死" alone on a line, and "Killed" printed over the start of a progress line
redrawn with a carriage return ("101 Killedssing: 1 batch"), at the bare-kill confidence.

Every pattern is RE2 (linear time).
"""
from __future__ import annotations

import math

import re2

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.exits import explaining_entries
from faultline.matching.index import Hit, MatchIndex, SigSpec
from faultline.matching.logparse import Line, ParsedLog, parse_log
from faultline.matching.tracebacks import exception_line

SHORT_REPORT_LINES = 8  # a title and a few lines of a report
NAME = "short-paste"  # the tier these answers belong to (capped confidence, see rank.calibrate)
TAIL_NAME = "bare-kill"

_KILL = re2.compile(
    r"(?i)\b(?:gets?|got|getting|was|were|is|are|be|been|being)\s+(?:\w+\s+)?killed\b"
    r"|\bkilled\s+(?:by|due to|because of)\s+(?:the\s+)?(?:oom|out[ -]of[ -]memory|linux|kernel|system|os|host)\b"
    r"|\boom[ -]?killer\b|\boom-kill\b"
    r"|\b(?:training|train|process|program|job|script|python)\s+(?:was\s+|is\s+)?killed\b"
    r"|\bkilled\s+(?:process\s+)?(?:during|while|when|in the middle of|after)\s+(?:the\s+)?"
    r"(?:training|train|epoch|step|fine-?tuning|loading)"
    r"|[\"“*]Killed[\"”*]"
    r"|\p{Han}\s*[\"“]?(?:killed|kill)\b|\bkilled\s*[\"”]?\p{Han}"
    r"|已杀死|被杀死|杀死了"
)
# a kill the user (or a scheduler's limit) made is no memory kill
_NOT_OOM_KILL = re2.compile(
    r"(?i)\bI killed\b|\bkilled (?:it|them|the \w+) (?:manually|myself)|killed by (?:the )?user|manually killed"
    r"|\b(?:not|never|isn't|wasn't|aren't|won't|don't|doesn't|didn't)\s+(?:\w+\s+)?killed\b"
    r"|ctrl[ +-]?c|keyboardinterrupt|\bkill -\d|\bscancel\b|sigterm|signal 15|preempt|time ?limit|timeout|timed out"
)
_RUN = re2.compile(r"(?i)train|epoch|step|it/s|process|program|python|job|script|fine-?tun|batch|model|%|训练|进程|程序")
_OOM = re2.compile(r"\bOOMs?\b|\bOOM(?:-?ing|ed)\b|(?i:\bout of (?:gpu |cuda |video |device )?memory\b)"
                   r"|显存(?:不足|溢出|爆|不够)")
# another framework's allocator: the KB's OOM entry is PyTorch's (its negatives hold TF, JAX, CuPy OOMs)
_OTHER_FRAMEWORK = re2.compile(r"(?i)tensorflow|\btf\.|keras|\bxla\b|\bjax|cupy|resource_?exhausted|bfc_allocator"
                               r"|paddle|mxnet|RunOptions")
# advice or help text that names an OOM is no report of one
_ADVICE = re2.compile(r"(?i)\bif you\b|\bhint:|\bconsider\b|\bavoid|\bprevent|\bto reduce\b")
# a report says what happened: an OOM with no word of a run or a failure is a heading, not a report
_REPORT = re2.compile(r"(?i)train|fine-?tun|epoch|step|batch|backward|forward|inference|eval|happen|occur|during"
                      r"|while|error|exception|crash|fail|problem|issue|\bgot\b|\bget|出现|发生|报错|训练|问题|现象|推理")
_GPU = re2.compile(r"(?i)cuda|gpu|vram|显存|显卡|\bbackward|\b[vahtl]\d{2,3}\b|\brtx|\bgtx|tesla|allocat")
_HOST = re2.compile(r"(?i)\b(?:ram|cpu memory|host memory|system memory|swap)\b|内存")
_CUDA_OOM_PROBE = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
                   "capacity of 15.78 GiB of which 4.19 MiB is free.")
# the shell's kill report as a terminal leaves it: another locale, or over a redrawn progress line
_TAIL_KILL = re2.compile(r"^(?:\S+: line \d+: +\d+ +)?已杀死(?:\s.*)?$|\bKilled[a-z]")


def short_report(parsed: ParsedLog) -> list[Line]:
    """The lines of a short report (a title and a few lines, no exception line, no comment), or [] for a log."""
    texts = parsed.texted
    if not texts or len(texts) > SHORT_REPORT_LINES or parsed.exceptions:
        return []
    if any(exception_line(ln.text) for ln in texts):  # "cupy...OutOfMemoryError: ..." pasted alone: a log line
        return []
    return [ln for ln in texts if not ln.text.lstrip().startswith(("#", "//"))]


def _spec(confidence: float, cfg: RankConfig) -> int:
    return int(-math.log(1 - confidence) * cfg.spec_scale) + 1


def _cuda_oom_entries(index: MatchIndex) -> list[str]:
    cache = index.signal_entries  # per index, like exits.py's signals
    if ("oom", "cuda") not in cache:
        found = sorted((h.sig for h in index.hits(parse_log(_CUDA_OOM_PROBE))
                        if index.roles.get(h.sig.entry_id, "cause") == "cause"), key=lambda s: -s.specificity)
        cache[("oom", "cuda")] = list(dict.fromkeys(s.entry_id for s in found))[:1]
    return cache[("oom", "cuda")]


def _kill_entries(index: MatchIndex) -> list[str]:
    cache = index.signal_entries
    if ("SIGKILL", None) not in cache:
        cache[("SIGKILL", None)] = explaining_entries(index, "SIGKILL")
    return cache[("SIGKILL", None)][:1]


def what_it_names(lines: list[Line]) -> tuple[str, Line] | None:
    """("kill" | "gpu-oom" | "host-oom", the line) a short report names, or None."""
    whole = "\n".join(ln.text for ln in lines)
    if _NOT_OOM_KILL.search(whole) is not None:
        return None
    for ln in lines:
        if _KILL.search(ln.text) is not None and _RUN.search(whole) is not None:
            return "kill", ln
    if _OTHER_FRAMEWORK.search(whole) is not None or _ADVICE.search(whole) is not None:
        return None
    for ln in lines:
        if _OOM.search(ln.text) is not None and _REPORT.search(whole) is not None:
            if _GPU.search(whole) is None and _HOST.search(whole) is not None:
                return "host-oom", ln
            return "gpu-oom", ln
    return None


def prose_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    """A short report that names a kill or an OOM in words, when nothing else in it was recognised."""
    if already - index.benign_ids:  # something was recognised: the paste is no bare title
        return []
    lines = short_report(parsed)
    named = what_it_names(lines) if lines else None
    if named is None:
        return []
    what, ln = named
    eids = _cuda_oom_entries(index) if what == "gpu-oom" else _kill_entries(index)
    spec = _spec(cfg.short_paste_confidence, cfg)
    out = [Hit(SigSpec(eid, NAME, "", True, None, (), spec), ln) for eid in eids if eid not in already]
    already.update(h.sig.entry_id for h in out)
    return out


def tail_kill_hits(index: MatchIndex, parsed: ParsedLog, already: set[str], cfg: RankConfig = DEFAULT) -> list[Hit]:
    """The shell's kill report at the end of a log in a form the bare-kill reader does not know."""
    tail = [ln for ln in parsed.lines[-8:] if ln.text][-5:]
    kill = next((ln for ln in reversed(tail)
                 if ("已杀死" in ln.text or "Killed" in ln.text) and _TAIL_KILL.search(ln.text.strip())), None)
    if kill is None:
        return []
    out = [Hit(SigSpec(eid, TAIL_NAME, "", True, None, (), _spec(cfg.killed_confidence, cfg)), kill)
           for eid in _kill_entries(index) if eid not in already]
    already.update(h.sig.entry_id for h in out)
    return out


__all__ = ["prose_hits", "tail_kill_hits", "what_it_names", "short_report", "SHORT_REPORT_LINES"]
