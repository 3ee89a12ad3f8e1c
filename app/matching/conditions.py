"""Whether a workaround fits the log at hand: its entry's ``when`` (app/entry.py LogCondition) checked
against the parsed log.  A pure function of the entry, the log and the match; nothing is stored.

``fits`` gives one value per workaround of the entry: True (its condition holds), False (the log
shows it fails: the fix is for another case than this log's) or None (no condition, or the log does
not tell).  The edges sort fitting fixes
first and mark the ones that do not fit (app/render/match.py)."""
from __future__ import annotations

from functools import lru_cache

import re2

from faultline.entry import Entry, LogCondition
from faultline.matching.logparse import ParsedLog
from faultline.matching.result import EntryMatch

_MAX_LINES = 20_000  # a pattern is run over at most this many lines (the parser's own bound)


@lru_cache(maxsize=512)
def _compiled(pattern: str):
    return re2.compile(pattern)


def some_ranks_only(parsed: ParsedLog, m: EntryMatch) -> bool:
    """The error was raised on some ranks, not all: the log has two or more ranks, and the ranks whose
    lines the entry's signatures matched are a proper subset of them."""
    ranks = set(parsed.ranks)
    hit = {h.line.rank for h in m.hits if h.line.rank is not None}
    return len(ranks) >= 2 and bool(hit) and hit < ranks


def holds(cond: LogCondition, parsed: ParsedLog, m: EntryMatch) -> bool | None:
    """True when every part of the condition holds; False when the log shows that one fails (a rank
    fact); None when it cannot tell.  A pattern that no line matches says nothing against the fix (the
    code that carries the cause is often not in the traceback), so it gives None, never False."""
    if cond.some_ranks_only is not None and some_ranks_only(parsed, m) != cond.some_ranks_only:
        return False
    if cond.pattern is not None:
        rx = _compiled(cond.pattern)
        if not any(rx.search(ln.text) for ln in parsed.lines[:_MAX_LINES]):
            return None
    return True


def fits(entry: Entry, parsed: ParsedLog, m: EntryMatch) -> tuple[bool | None, ...]:
    return tuple(None if w.when is None else holds(w.when, parsed, m) for w in entry.workarounds)
