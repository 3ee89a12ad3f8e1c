"""Masking of what varies between runs (Drain3/Sentry style), and tokenising.

``mask()`` turns a log line into a template: numbers, sizes, hex addresses,
paths, IPs, ports, hosts and ranks become placeholders, so the same error
from another run gives the same template.  ``tokens()`` gives the words of a
masked text for the fuzzy "related" search.
"""
from __future__ import annotations

import re

import re2

_RULES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"https?://\S+"), "<url>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:/[\w.+@~-]+){2,}/?"), "<path>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b[0-9a-f]{12,}\b", re.I), "<hex>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes|ms|s)\b"), "<size>"),
    (re.compile(r"\b[Rr]ank\s*\d+"), "rank <n>"),
    (re.compile(r"\bpid[:= ]\s*\d+", re.I), "pid <n>"),
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
]
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_STOP = frozenset(
    "the and for was were with that this from not are but you your has have had been will can could into "
    "when then than there their which while after before please make sure see more use using error "
    "errors traceback most recent call last file line self none true false".split()
)


_LIGHT = _RULES[:7] + [(re.compile(r"\d{3,}"), "<n>")]
# a compiled library's source location ("../aten/src/ATen/native/cuda/IndexKernel.cu:92"): the file names the
# kernel, its directory and line vary between builds and versions; RE2, as it runs on pasted text
_SOURCE_LOCATION = re2.compile(r"(?:[A-Za-z]:)?(?:[\w.+@~-]*[/\\])*(\w+\.(?:cu|cuh|cpp|cc|cxx|hpp|h)):\d+\b")
_SOURCE_FILE = re2.compile(r"(\w+\.(?:cu|cuh|cpp|cc|cxx|hpp|h)):\d+\b")
_SOURCE_SUFFIXES = (".cu:", ".cuh:", ".cpp:", ".cc:", ".cxx:", ".hpp:", ".h:")


def source_files(text: str) -> set[str]:
    """The file stems of compiled source locations in a text ("indexkernel" for ".../IndexKernel.cu:92")."""
    if not any(s in text for s in _SOURCE_SUFFIXES):
        return set()
    return {m.split(".", 1)[0].lower() for m in _SOURCE_FILE.findall(text)}


def mask_light(text: str) -> str:
    """Like mask(), but short numbers stay: exit codes, signals and errnos tell errors apart."""
    if any(s in text for s in _SOURCE_SUFFIXES):
        text = _SOURCE_LOCATION.sub(r"<src>\1:<n>", text)
    for rx, repl in _LIGHT:
        text = rx.sub(repl, text)
    return text


def mask(text: str) -> str:
    for rx, repl in _RULES:
        text = rx.sub(repl, text)
    return text


def tokens(text: str) -> list[str]:
    return [w for w in (m.lower() for m in _WORD.findall(mask(text))) if w not in _STOP]
