"""The root cause of a log: the first failure that is not a consequence of another one.

An incident is an exception (the first of its chain) or a line an entry matched.  Benign lines
(known warnings people mistake for the cause) are never incidents.  A warning never outranks
the exception that ended the run unless the KB says the warning leads to it (``leads_to``).
Among causes, torchrun's "first observed failure" rank is preferred; then the earliest.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import re2

from faultline.matching.index import Hit
from faultline.matching.logparse import Line, ParsedLog, PyException
from faultline.matching.result import Origin

# Lines that report a consequence of a failure elsewhere (another rank, the launcher).
_SYMPTOM = re2.compile(
    r"(?i)timed out|timeout|communicator was aborted|Connection closed by peer|Connection reset by peer|"
    r"ChildFailedError|SIGTERM|Signal 15|Broken pipe|watchdog|heartbeat|Socket Timeout|"
    r"NCCL operations have failed|ncclRemoteError|remote process exiting|ProcessExitedException|"
    r"Received \d+ death signal|process \d+ terminated with exit code|DistStoreError|failed to recv|"
    r"KeyboardInterrupt"
)
# A warning, not an error: Python warnings, logging's WARNING level, glog's W lines.
# "[rank1]:[W1130 ..." and "node-b | [W1201 ..." too
_WARNING = re2.compile(r"(?:^|[^\w])(?:[A-Z]\w*Warning:|WARNING\b)|(?:^|\]:|\| )\[?W\d{4} |^\[W ")
_PACKAGE = re2.compile(r"(?:site|dist)-packages[/\\]+([A-Za-z0-9_][A-Za-z0-9_.-]*)")

RoleOf = Callable[[str], str]
LeadsOf = Callable[[str], Iterable[str]]


@dataclass
class Incident:
    line: Line
    cause: bool
    order: int
    entries: frozenset[str] = frozenset()
    warning: bool = False


def is_warning(line: Line, exc_type: str | None = None) -> bool:
    if exc_type is not None:
        return exc_type.endswith("Warning")
    return _WARNING.search(line.raw) is not None


def _entries_by_line(hits: list[Hit]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for h in hits:
        out.setdefault(h.line.no, set()).add(h.sig.entry_id)
    return out


def incidents(parsed: ParsedLog, hits: list[Hit], role_of: RoleOf) -> list[Incident]:
    by_line = _entries_by_line(hits)
    out: list[Incident] = []
    seen: set[int] = set()

    def add(ln: Line, exc_type: str | None) -> None:
        seen.add(ln.no)
        eids = by_line.get(ln.no, set())
        roles = {role_of(e) for e in eids}
        if roles and roles <= {"benign"}:
            return  # a known harmless line: never the root cause
        if "cause" in roles:
            cause = True
        elif roles - {"benign"}:  # symptom or wrapper
            cause = False
        else:
            cause = _SYMPTOM.search(ln.text) is None
        out.append(Incident(ln, cause, ln.no, frozenset(e for e in eids if role_of(e) != "benign"),
                            is_warning(ln, exc_type)))

    for exc in parsed.exceptions:
        if exc.chained_from is None:  # the first exception of a chain is the original one
            add(exc.line, exc.type)
    for h in hits:
        if h.line.no not in seen:
            add(h.line, None)
    return out


def _not_led_to(pool: list[Incident], everything: list[Incident], leads_of: LeadsOf) -> list[Incident]:
    """Drop incidents that the KB says another incident of the log leads to."""
    consequences: set[str] = set()
    for i in everything:
        for e in i.entries:
            consequences.update(leads_of(e))
    kept = [i for i in pool if not (i.entries and i.entries <= consequences)]
    return kept or pool


def _no_wrapper_over_failure(pool: list[Incident], role_of: RoleOf) -> list[Incident]:
    """A launcher's "a child failed" line (an entry of role wrapper) is never the first failure when
    the log also shows a failure of its own (the child's error, even a symptom such as a timeout)."""
    def wrapper_only(i: Incident) -> bool:
        return bool(i.entries) and all(role_of(e) == "wrapper" for e in i.entries)

    kept = [i for i in pool if not wrapper_only(i)]
    return kept or pool


def _no_warning_over_error(pool: list[Incident], leads_of: LeadsOf) -> list[Incident]:
    errors = [i for i in pool if not i.warning]
    if not errors or len(errors) == len(pool):
        return pool
    error_entries = {e for i in errors for e in i.entries}
    # a warning stays only when its entry leads to an error of the log
    return errors + [i for i in pool if i.warning and any(set(leads_of(e)) & error_entries for e in i.entries)]


def _is_report(line: Line) -> bool:
    """A Python exception, a C++ what() or a line of an exception's message: how a process reports what ended it."""
    return line.kind in ("exception", "what") or line.block is not None


def _no_printed_line_over_exception(pool: list[Incident], leads_of: LeadsOf) -> list[Incident]:
    """A line a process printed on its way (a library's import-time notice, a log message) does not
    outrank an exception the same process raised after it: that exception ended the run.  The printed
    line stays when the KB says its entry leads to that exception's entry, or when the exception names
    the library the printed line's entry is about."""
    reports = [i for i in pool if i.cause and _is_report(i.line)]
    if not reports:
        return pool

    def outranked(p: Incident) -> bool:
        if _is_report(p.line) or not p.entries:
            return False
        # right above the report it is the report's own header ("terminate called after throwing ..." over what())
        later = [e for e in reports if e.line.rank == p.line.rank and e.order > p.order + 2]
        if not later:
            return False
        leads = {t for x in p.entries for t in leads_of(x)}
        # the exception names the library of the printed line's entry ("module 'bitsandbytes' has no
        # attribute 'optim'" after bitsandbytes printed that it has no GPU library): the line explains it
        libs = {x.split("/", 1)[0].lower() for x in p.entries if "/" in x}
        return not any(e.entries & leads or any(lib in e.line.text.lower() for lib in libs) for e in later)

    kept = [i for i in pool if not outranked(i)]
    return kept or pool


def _silent_first_failure(parsed: ParsedLog, found: list[Incident], role_of: RoleOf) -> Line | None:
    """torchrun's summary names the first failed rank, and that rank reported nothing the log shows
    (no exception, no line an entry knows but the launcher's own "a child failed", none in its summary
    record) while the errors the log shows come from ranks the summary lists as later failures: it ended
    by itself with an exit code (e.g. ``sys.exit(3)``) before the others failed.  Its summary record is
    the first failure."""
    own = [i for i in found if not (i.entries and all(role_of(e) == "wrapper" for e in i.entries))]
    later = {f.rank for f in parsed.failed_ranks if not f.first}
    for f in parsed.failed_ranks:
        if not f.first or f.rank is None or f.line is None or f.lines is None:
            continue
        if f.signal is not None or f.exitcode is None or f.exitcode <= 0:
            return None
        lo, hi = f.lines
        # every error the log shows must come from a rank the summary lists as a later failure: an error
        # without a rank (an unprefixed log) or on a rank the summary does not list may be this rank's own
        if any(i.line.rank == f.rank or lo <= i.line.no <= hi or i.line.rank not in later for i in own):
            return None
        return f.line
    return None


def choose_root(parsed: ParsedLog, hits: list[Hit], role_of: RoleOf, leads_of: LeadsOf) -> Line | None:
    found = incidents(parsed, hits, role_of)
    silent = _silent_first_failure(parsed, found, role_of)
    if silent is not None:
        return silent
    causes = [i for i in found if i.cause]
    # with no cause in the log, the first observed failure (a symptom) is still the best lead; nor is a
    # warning a failure: when every cause is a warning, the errors of the log come first
    errors = [i for i in found if not i.warning]
    pool = (errors if causes and errors and all(i.warning for i in causes) else causes) or found
    if not pool:
        return None
    pool = _not_led_to(pool, found, leads_of)
    pool = _no_wrapper_over_failure(pool, role_of)
    pool = _no_warning_over_error(pool, leads_of)
    pool = _no_printed_line_over_exception(pool, leads_of)
    first_ranks = [f.rank for f in parsed.failed_ranks if f.first and f.rank is not None]
    if first_ranks and causes:
        preferred = [i for i in pool if i.line.rank in first_ranks]
        if preferred:
            pool = preferred
    return min(pool, key=lambda i: (i.line.ets, i.order)).line


def is_cause(line: Line, hits: list[Hit], role_of: RoleOf) -> bool:
    roles = {role_of(h.sig.entry_id) for h in hits if h.line.no == line.no} - {"benign"}
    return "cause" in roles if roles else _SYMPTOM.search(line.text) is None


def origin_of(exc: PyException, versions: dict[str, str]) -> Origin | None:
    """The innermost frame of an exception, and the package it is in (None: the user's own code)."""
    if not exc.frames:
        return None
    f = exc.frames[-1]
    m = _PACKAGE.search(f.file)
    package = None
    if m:
        package = m.group(1)
        for suffix in (".py", ".so"):
            if package.endswith(suffix):
                package = package[: -len(suffix)]
        package = package.split(".")[0] or None
    version = None
    if package:
        norm = package.lower().replace("_", "-")
        version = versions.get(norm) or versions.get(package) or versions.get(norm.replace("-", "_"))
    user = next((fr for fr in reversed(exc.frames) if not fr.library and _PACKAGE.search(fr.file) is None), None)
    return Origin(f.file, f.line, f.function, package, version, not f.library and package is None,
                  user.file if user else None, user.line if user else None)
