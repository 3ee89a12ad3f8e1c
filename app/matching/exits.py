"""Reports that only say a child process failed, and what their exit code says.

A launcher, a job platform or a GUI often prints nothing of the training's own error, only that the
child exited with N: Python's ``CalledProcessError`` ("returned non-zero exit status -9"), DeepSpeed's
launcher ("exits with return code = -7"), torchrun ("exitcode: -9"), Composer ("Rank 1 crashed with
exit code -9"), SageMaker ("ExitCode 137", "AlgorithmError: Exit Code: 139"), Slurm's srun, an IDE
("Process finished with exit code 137"), a shell ("Bus error (core dumped)").  When N says a signal
ended the child, the signal points to what usually sends it:

- a negative code is the signal's number (Python's ``returncode`` convention: -9 is SIGKILL);
- 128 + N is a shell's or a container's report of signal N (137 SIGKILL, 135 SIGBUS, 139 SIGSEGV);
- a Windows NTSTATUS code (3221225477 = 0xC0000005, an access violation) is a native crash.

Which entry explains a signal is the KB's say, not this module's: the entries of role ``cause`` whose
signatures recognise torchrun's own line for that signal ("Signal 7 (SIGBUS) received by PID 1")
(`explaining_entries`).  Those entries come in at a lower confidence (the evidence is one number),
and the KB's ``leads_to`` from them to the wrapper entries keeps them above the wrapper.  A signal no
entry explains, or a code that is no signal, leaves the wrapper alone.

A container's status alone ("Reason: OOMKilled", "Exit Code: 137" in kubectl describe) is not read:
it names no training process (a sidecar's kill reads the same).

Every pattern is RE2 (linear time), tried only on lines that hold its literal.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import re2

from faultline.matching.config import DEFAULT, RankConfig
from faultline.matching.index import Hit, MatchIndex, SigSpec
from faultline.matching.logparse import Line, ParsedLog, parse_log
from faultline.matching.result import Reason

SIG_NAME = "exit-code-signal"  # the signature name of a hit this module adds
TAIL_LINES = 5  # a shell's bare signal report ("Bus error (core dumped)") counts in the last lines only

SIGNALS = {1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
           11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}
_NUMBERS = {name: n for n, name in SIGNALS.items()}
# Windows: a process that crashed exits with its NTSTATUS (printed unsigned, or signed by some tools),
# with the POSIX signal of the same kind of crash where there is one
NTSTATUS = {
    0xC0000005: ("STATUS_ACCESS_VIOLATION", "SIGSEGV"),
    0xC00000FD: ("STATUS_STACK_OVERFLOW", "SIGSEGV"),
    0xC000001D: ("STATUS_ILLEGAL_INSTRUCTION", "SIGILL"),
    0xC0000409: ("STATUS_STACK_BUFFER_OVERRUN", "SIGABRT"),
    0xC0000374: ("STATUS_HEAP_CORRUPTION", "SIGABRT"),
    0xC0000135: ("STATUS_DLL_NOT_FOUND", None),
    0xC0000142: ("STATUS_DLL_INIT_FAILED", None),
}
_WORDS = {"killed": "SIGKILL", "bus error": "SIGBUS", "segmentation fault": "SIGSEGV", "aborted": "SIGABRT",
          "illegal instruction": "SIGILL", "floating point exception": "SIGFPE"}


@dataclass(frozen=True)
class ChildExit:
    """One line saying that a child process ended: who said it, with which code or signal."""

    wrapper: str  # subprocess, deepspeed, torchrun, composer, sagemaker, slurm, ide, shell, process
    code: int | None  # the exit code as printed (None when only a signal name was printed)
    signal: str | None  # SIGKILL ... (None: the code is no signal)
    status: str | None = None  # a Windows NTSTATUS name, when the code is one


def signal_of(code: int) -> tuple[str | None, str | None]:
    """(signal, NTSTATUS name) an exit code stands for; (None, None) for an ordinary exit code."""
    if code < 0:
        if -code in SIGNALS:
            return SIGNALS[-code], None
        code += 1 << 32  # a signed NTSTATUS: -1073741819 is 0xC0000005
    if 128 < code < 160:
        return SIGNALS.get(code - 128), None
    if code in NTSTATUS:
        status, sig = NTSTATUS[code]
        return sig, status
    return None, None


# (wrapper, literal that must occur in the lowercased line, pattern; group 1 is the code or a signal name)
_CODE = r"(-?\d{1,10})"
_FORMS: tuple[tuple[str, str, object], ...] = tuple(
    (w, lit, re2.compile(p)) for w, lit, p in (
        ("subprocess", "non-zero exit status", r"returned non-zero exit status " + _CODE),
        ("subprocess", "non-zero code", r"returned (?:a )?non-zero code: " + _CODE),
        ("subprocess", "died with <signals.", r"died with <Signals\.(SIG[A-Z]+): \d+>"),
        ("deepspeed", "exits with return code", r"exits with return code = " + _CODE),
        ("torchrun", "exitcode", r"(?:failed \(exitcode: |^\s*exitcode\s*: )" + _CODE),
        ("composer", "crashed with exit code", r"\bRank \d+ crashed with exit code " + _CODE),
        ("composer", "exited with code", r"\bGlobal rank \d+ \(PID \d+\) exited with code " + _CODE),
        ("sagemaker", "exit code:", r"AlgorithmError: Exit Code: " + _CODE),
        ("sagemaker", "exitcode", r"^ExitCode:? " + _CODE + r"\s*$"),
        ("slurm", "srun: error:", r"^srun: error: \S+: tasks? [\d,-]+: Exited with exit code " + _CODE),
        ("slurm", "srun: error:",
         r"^srun: error: \S+: tasks? [\d,-]+: (Killed|Bus error|Segmentation fault|Aborted)\b"),
        ("ide", "process finished with exit code", r"Process finished with exit code " + _CODE),
        ("process", "exit", r"(?i)\b(?:exit(?:ed)?|terminated) with (?:exit )?(?:code|status)[ :=]{0,3}" + _CODE + r"\b"),
    )
)
# the shell's own report of a child ended by a signal: "Bus error (core dumped)",
# "./run.sh: line 30: 294291 Bus error   (core dumped) python train.py"
_SIGNAL_WORDS = r"(Bus error|Segmentation fault|Aborted|Illegal instruction|Floating point exception)"
_SHELL = re2.compile(
    r"(?i)^(?:" + _SIGNAL_WORDS + r"(?: \(core dumped\))?"
    r"|\S+: line \d+: +\d+ +" + _SIGNAL_WORDS + r"(?: +\(core dumped\))?(?: +\S.*)?)$")


def _exit_from(wrapper: str, value: str) -> ChildExit | None:
    if value.startswith("SIG"):
        return ChildExit(wrapper, -_NUMBERS[value] if value in _NUMBERS else None, value)
    if not value[:1].isdigit() and not value.startswith("-"):  # a signal's word (srun)
        return ChildExit(wrapper, None, _WORDS.get(value.lower()))
    code = int(value)
    sig, status = signal_of(code)
    return ChildExit(wrapper, code, sig, status)


def read_exit(text: str, tail: bool = False) -> ChildExit | None:
    """The child exit one log line reports, if it reports one (``tail``: the line is among the log's
    last lines, where a shell's bare signal report counts)."""
    low = text.lower()
    for wrapper, literal, pattern in _FORMS:
        if literal in low and (m := pattern.search(text)):
            return _exit_from(wrapper, m.group(1))
    if tail and len(text) <= 400 and any(w in low for w in _WORDS) and (m := _SHELL.search(text.strip())):
        return ChildExit("shell", None, _WORDS[(m.group(1) or m.group(2)).lower()])
    return None


_CANDIDATE_WORDS = ("xit", "XIT", "Signals.", "srun: ")


def _candidate(text: str) -> bool:
    """Whether a line can hold one of the forms (every form's literal holds one of these, in any case)."""
    return any(w in text for w in _CANDIDATE_WORDS)


def child_exits(parsed: ParsedLog) -> list[tuple[Line, ChildExit]]:
    """Every line of the log that reports a child's exit, with what it reports."""
    lines = parsed.messages
    first_tail = len(lines) - TAIL_LINES
    # where no line holds a form's word, only the last lines (a shell's bare report) are read
    start = 0 if not parsed.joined or any(w in parsed.joined for w in _CANDIDATE_WORDS) else max(first_tail, 0)
    out = []
    for i in range(start, len(lines)):
        ln = lines[i]
        if (i >= first_tail or _candidate(ln.text)) and (ex := read_exit(ln.text, i >= first_tail)) is not None:
            out.append((ln, ex))
    return out


def _probe(signal: str) -> str:
    """torchrun's own line for a worker ended by ``signal``: what the KB's signal entries recognise."""
    return f"traceback : Signal {_NUMBERS[signal]} ({signal}) received by PID 1"


def _status_probe(code: int) -> str:
    """How Windows tools print a process's NTSTATUS exit (signed, then hex): what the KB's Windows
    crash entries recognise."""
    unsigned = code & 0xFFFFFFFF
    return f"Process finished with exit code {unsigned - (1 << 32)} (0x{unsigned:08X})"


def _cause_entries(index: MatchIndex, probe: str) -> list[str]:
    found = [h.sig for h in index.hits(parse_log(probe))]
    found = [s for s in found if index.roles.get(s.entry_id, "cause") == "cause"]
    return list(dict.fromkeys(s.entry_id for s in sorted(found, key=lambda s: -s.specificity)))


def explaining_entries(index: MatchIndex, signal: str | None, status_code: int | None = None) -> list[str]:
    """The entries (role cause) the KB says explain a child ended by ``signal`` (or, on Windows, by the
    NTSTATUS ``status_code``: the entries for that status first, else those for its POSIX signal), best first."""
    if status_code is not None and (found := _cause_entries(index, _status_probe(status_code))):
        return found
    if signal not in _NUMBERS:
        return []
    return _cause_entries(index, _probe(signal))


def exit_signal_hits(index: MatchIndex, parsed: ParsedLog, already: set[str],
                     cfg: RankConfig = DEFAULT) -> list[Hit]:
    """Hits, at a lower confidence, for the entries that explain the signal a child-exit line reports.
    Entries already matched by their own signatures are not added again."""
    spec = int(-math.log(1 - cfg.killed_confidence) * cfg.spec_scale) + 1
    out: list[Hit] = []
    cache = index.signal_entries  # what the KB says of a signal depends on the index only: probed once per index
    for ln, ex in child_exits(parsed):
        if ex.signal is None and ex.status is None:
            continue
        key = (ex.signal, ex.code if ex.status else None)
        if key not in cache:
            cache[key] = explaining_entries(index, *key)
        for eid in cache[key]:
            if eid not in already:
                already.add(eid)
                out.append(Hit(SigSpec(eid, SIG_NAME, "", True, None, (), spec), ln))
    return out


def exit_reason(sig_name: str, text: str) -> Reason | None:
    """Why a match says what it says about a child's exit: for a hit of this module (the signal's
    explanation), or for a wrapper entry's line whose code is a signal."""
    ex = read_exit(text, tail=True)
    if ex is None or ex.signal is None and ex.status is None:
        return None
    what = ex.status or ex.signal
    params = {"wrapper": ex.wrapper, "exit": what if ex.code is None else f"{ex.code}={what}"}
    return Reason("exit_code_signal" if sig_name == SIG_NAME else "exit_code_signal_wrapper", params)


__all__: Iterable[str] = ["ChildExit", "signal_of", "read_exit", "child_exits", "explaining_entries",
                          "exit_signal_hits", "exit_reason", "SIG_NAME"]
