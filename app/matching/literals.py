"""Required literals of a signature pattern, for the candidate index.

A signature can only match a line that contains every literal run its
pattern requires.  The longest such run becomes the signature's anchor in
the Aho-Corasick automaton, so only signatures whose anchor occurs in the
pasted text are ever run.  The total number of required literal characters
is the signature's specificity.
"""
from __future__ import annotations

import re

try:  # Python 3.11+
    import re._parser as _sp  # type: ignore[import-not-found]
    import re._constants as _sc  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover
    import sre_constants as _sc  # type: ignore[no-redef]
    import sre_parse as _sp  # type: ignore[no-redef]


def required_literals(pattern: str) -> list[str]:
    """Literal runs every match of ``pattern`` must contain (lowercased). [] if unknown."""
    try:
        parsed = _sp.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return []
    runs: list[str] = []
    _walk(list(parsed), runs)
    return [r.lower() for r in runs if r.strip()]


def _walk(items, runs: list[str]) -> None:
    cur: list[str] = []

    def flush():
        if cur:
            runs.append("".join(cur))
            cur.clear()

    for op, arg in items:
        if op is _sc.LITERAL:
            cur.append(chr(arg))
        elif op is _sc.SUBPATTERN:
            flush()
            _walk(list(arg[-1]), runs)
        elif op in (_sc.MAX_REPEAT, _sc.MIN_REPEAT, getattr(_sc, "POSSESSIVE_REPEAT", None)):
            lo, _hi, sub = arg
            flush()
            if lo >= 1:
                _walk(list(sub), runs)
        elif op is _sc.AT:
            continue  # anchors keep the run going
        else:  # IN, ANY, BRANCH, NOT_LITERAL, ...: nothing certain
            flush()
    flush()


def specificity(literals: list[str]) -> int:
    """Number of letters and digits the pattern insists on."""
    return sum(ch.isalnum() for run in literals for ch in run)


def anchor(literals: list[str]) -> str | None:
    """The most selective required literal: the longest one with at least 3 characters."""
    best = max(literals, key=len, default=None)
    return best if best and len(best.strip()) >= 3 else None
