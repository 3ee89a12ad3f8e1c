"""The verdict on a log's root cause: who must act (``blame``) and whether rerunning as is can help
(``retry``), with how sure it is.

For a root cause an entry explains, the entry says it (its ``blame`` and ``retry``).  For an error no
entry knows, the verdict is derived from what the log shows about it, and says so (``source:
derived`` and its ``origin``): the exception's type when it is one that tells (a missing module, a
refused connection), else where it was raised (the user's code, a package, called from the user's
code or not), else a signal the OS sent (SIGKILL, SIGSEGV) or a GPU hardware report (an Xid).
Nothing here knows a language: reasons are `Reason(code, params)`, rendered by the edges.
"""
from __future__ import annotations

from typing import Callable

import re2

from faultline.entry import Entry
from faultline.matching.exits import read_exit
from faultline.matching.result import MatchResult, Origin, Reason, RootCause, Verdict

# How sure a derived verdict is: a traceback's own frames say more than one line does.
CONF_EXCEPTION_TYPE = 0.6  # the exception's type alone says who must act (ModuleNotFoundError)
CONF_USER_CODE = 0.7  # raised in the user's own code
CONF_PACKAGE_CALL = 0.5  # raised inside a package, called from the user's code with what it refused
CONF_PACKAGE = 0.4  # raised inside a package, nothing says the user's call is at fault
CONF_STDLIB = 0.5  # raised in the standard library, called from the user's code
CONF_SIGNAL = 0.45  # only the signal that ended the process
CONF_HARDWARE = 0.5  # a GPU hardware report (Xid, fallen off the bus)
CONF_ENTRY_DEFAULT = 0.5  # an entry explains the root but was not scored (never expected)

# exception types (their last dotted part) that say who must act, wherever they are raised
_BY_EXCEPTION: dict[str, tuple[str, str]] = {
    "ModuleNotFoundError": ("installation", "after_change"),
    "ImportError": ("installation", "after_change"),
    "ConnectionError": ("network", "transient"),
    "ConnectionResetError": ("network", "transient"),
    "ConnectionRefusedError": ("network", "transient"),
    "ConnectionAbortedError": ("network", "transient"),
    "TimeoutError": ("network", "transient"),
    "timeout": ("network", "transient"),  # socket.timeout
    "ReadTimeout": ("network", "transient"),
    "ConnectTimeout": ("network", "transient"),
    "ReadTimeoutError": ("network", "transient"),
    "DistNetworkError": ("network", "transient"),
    "MemoryError": ("environment", "after_change"),
    "FileNotFoundError": ("configuration", "after_change"),
    "NotADirectoryError": ("configuration", "after_change"),
    "IsADirectoryError": ("configuration", "after_change"),
    "PermissionError": ("environment", "after_change"),
    "SyntaxError": ("user_code", "after_change"),
    "IndentationError": ("user_code", "after_change"),
    "NameError": ("user_code", "after_change"),
    "UnboundLocalError": ("user_code", "after_change"),
}
# raised inside a package from the user's call: usually the call passed what the package refuses
_ARGUMENT_ERRORS = frozenset({"TypeError", "ValueError", "KeyError", "IndexError", "AssertionError"})

# signals that end a training process, by name, with who usually sent them and why
_BY_SIGNAL: dict[str, tuple[str, str]] = {
    "SIGKILL": ("environment", "after_change"),  # the kernel's out-of-memory killer, most often
    "SIGTERM": ("scheduler", "transient"),  # preemption or a stop from the job scheduler
    "SIGHUP": ("scheduler", "transient"),
    "SIGSEGV": ("library_version", "after_change"),  # native code crashed: a build or version mismatch
    "SIGABRT": ("library_version", "after_change"),
    "SIGILL": ("installation", "after_change"),  # a binary built for another CPU
    "SIGFPE": ("library_version", "after_change"),
    "SIGBUS": ("environment", "after_change"),  # shared memory (/dev/shm) too small, a file truncated under mmap
}
_SIGNAL_NAME = re2.compile(r"\b(SIG(?:KILL|TERM|HUP|SEGV|ABRT|ILL|FPE|BUS))\b")  # "Signal 9 (SIGKILL) received"
_HARDWARE = re2.compile(r"(?i)NVRM: Xid|\bXid \d+|fallen off the bus|uncorrectable ECC|row remapping failure")
# every match of _HARDWARE holds one of these once case-folded (casefold maps every letter RE2's (?i) takes for
# one of theirs, "ſ" and the Kelvin sign among them, to it)
_HARDWARE_WORDS = ("xid", "fallen off the bus", "uncorrectable ecc", "row remapping failure")

EntryLookup = Callable[[str], Entry]


def signal_in(text: str) -> str | None:
    """The signal a log line says ended a process (its name): a launcher's or a shell's report of the
    child's exit (app/matching/exits.py), or a line that names the signal."""
    ex = read_exit(text, tail=True)
    if ex is not None and ex.signal:
        return ex.signal
    m = _SIGNAL_NAME.search(text) if "SIG" in text else None
    return m.group(1) if m else None


def _short(exc: str | None) -> str | None:
    return exc.rsplit(".", 1)[-1] if exc else None


def _params(o: Origin) -> dict:
    return {"file": o.file, "line": o.line, "function": o.function, "package": o.package,
            "version": o.version, "user_file": o.user_file, "user_line": o.user_line}


def derive(rc: RootCause) -> Verdict | None:
    """A verdict for a root cause no entry explains, from what the log shows; None when it shows nothing."""
    exc = _short(rc.exception)
    o = rc.origin
    if exc in _BY_EXCEPTION:
        blame, retry = _BY_EXCEPTION[exc]
        params = {"exception": exc, **(_params(o) if o else {})}
        return Verdict(blame, retry, "derived", CONF_EXCEPTION_TYPE, origin="exception",
                       blame_reason=Reason("exception_type", params), retry_reason=Reason(f"derived_{retry}"))
    if o is not None and rc.is_cause:  # where a consequence (a timeout, Ctrl-C) was raised says nothing
        params = _params(o)
        if o.package is None and o.in_user_code:
            return Verdict("user_code", "after_change", "derived", CONF_USER_CODE, origin="user_code",
                           blame_reason=Reason("raised_in_user_code", params),
                           retry_reason=Reason("derived_after_change"))
        if o.package is not None:
            if o.user_file and exc in _ARGUMENT_ERRORS:
                return Verdict("user_code", "after_change", "derived", CONF_PACKAGE_CALL, origin="package",
                               package=o.package, blame_reason=Reason("raised_in_package_from_user_call", params),
                               retry_reason=Reason("derived_after_change"))
            return Verdict("library_version", "after_change", "derived", CONF_PACKAGE, origin="package",
                           package=o.package, blame_reason=Reason("raised_in_package", params),
                           retry_reason=Reason("derived_after_change"))
        if o.user_file:  # the standard library, called from the user's code
            return Verdict("user_code", "after_change", "derived", CONF_STDLIB, origin="stdlib",
                           blame_reason=Reason("raised_in_stdlib_from_user_call", params),
                           retry_reason=Reason("derived_after_change"))
    return from_line(rc.line)


def from_line(text: str) -> Verdict | None:
    """What one line alone says: a GPU hardware report, or a signal that ended a process."""
    folded = text.casefold()
    if any(w in folded for w in _HARDWARE_WORDS) and _HARDWARE.search(text):
        return Verdict("hardware", "transient", "derived", CONF_HARDWARE, origin="hardware",
                       blame_reason=Reason("hardware_report"), retry_reason=Reason("derived_hardware_transient"))
    sig = signal_in(text)
    return _by_signal(sig) if sig in _BY_SIGNAL else None


def _confidence(res: MatchResult, entry_id: str) -> float:
    for m in res.matches:
        if m.entry_id == entry_id:
            return m.confidence
    for r in res.related:
        if r.entry_id == entry_id and r.score is not None:
            return round(r.score, 3)
    return CONF_ENTRY_DEFAULT


def _by_signal(sig: str) -> Verdict:
    blame, retry = _BY_SIGNAL[sig]
    return Verdict(blame, retry, "derived", CONF_SIGNAL, origin="signal", signal=sig,
                   blame_reason=Reason(f"signal_{sig.lower()}", {"signal": sig}),
                   retry_reason=Reason(f"derived_{retry}"))


def verdict_of(res: MatchResult, entry: EntryLookup, tail: list[str] = ()) -> Verdict | None:
    """The verdict on the result's root cause: its entry's, else a derived one; with no root cause (or
    nothing to derive from it), the signal torchrun's summary reports, else what the log's last lines
    (``tail``) say: a hardware report or a signal."""
    rc = res.root_cause
    if rc is not None and rc.entry is not None:
        e = entry(rc.entry)
        if e.blame is not None and e.retry is not None:
            return Verdict(e.blame.kind, e.retry.kind, "entry", _confidence(res, rc.entry), entry=rc.entry,
                           blame_reason=Reason("entry", {"entry": rc.entry}),
                           retry_reason=Reason("entry", {"entry": rc.entry}))
    v = derive(rc) if rc is not None else None
    if v is not None:
        return v
    sig = next((f.get("signal") for f in res.log.failed_ranks if f.get("first") and f.get("signal") in _BY_SIGNAL),
               None)
    if sig is not None:
        return _by_signal(sig)
    return next((v for t in reversed(tail) if (v := from_line(t)) is not None), None)
