"""Package versions from what users paste: a dict, ``pip freeze``, ``collect_env``,
``accelerate env`` or an ``nvidia-smi`` header; and whether an entry applies to them."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from faultline.entry import Entry, normalize_package, parse_requirement

# Pasted text is hostile input: these run under RE2 (linear time, no backtracking), each only on
# lines that pass a cheap test of its shape.
_PATTERNS = [
    # pip freeze / pip list: "torch==2.3.1", "torch   2.3.1" (two tokens at most)
    (lambda ln: len(ln.split(None, 2)) <= 2,
     re2.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:==|\s)\s*v?(\d+(?:\.\d+)+[\w.+-]*)\s*$")),
    # collect_env: "[pip3] torch==2.3.1", "[conda] torch 2.3.1"
    (lambda ln: ln.startswith(("[pip", "[conda")),
     re2.compile(r"^\[(?:pip3?|conda)\]\s+([A-Za-z0-9][A-Za-z0-9._-]*)[=\s]+v?(\d+(?:\.\d+)+[\w.+-]*)")),
    # accelerate env / collect_env: "- `Accelerate` version: 0.30.1", "- PyTorch version (GPU?): 2.3.0+cu121 (True)"
    (lambda ln: "version" in ln,
     re2.compile(r"^-?\s*`?([A-Za-z][\w .-]*?)`?\s+version(?:\s*\([^)]*\))?\s*:\s*v?(\d+(?:\.\d+)+[\w.+-]*)")),
]
# (literal the line must contain, package, pattern)
_SPECIAL = [
    ("CUDA Version:", "cuda", re2.compile(r"CUDA Version:\s*(\d+\.\d+)")),  # nvidia-smi
    ("Driver Version:", "nvidia-driver", re2.compile(r"Driver Version:\s*(\d+(?:\.\d+)+)")),
    ("CUDA used to build PyTorch:", "cuda", re2.compile(r"CUDA used to build PyTorch:\s*(\d+\.\d+)")),
    ("Python version:", "python", re2.compile(r"Python version:\s*(\d+\.\d+(?:\.\d+)?)")),
    ("Python ", "python", re2.compile(r"^Python (\d+\.\d+\.\d+)")),
    ("NCCL version ", "nccl", re2.compile(r"NCCL version (\d+\.\d+\.\d+)")),
]
_MAX_PACKAGE_LINE = 200
_MAX_VERSION = 40  # no real version string is longer
_ALIASES = {"pytorch": "torch", "pytorch-cuda": "cuda", "accelerate": "accelerate", "transformers": "transformers",
            "cuda-runtime": "cuda", "numpy": "numpy", "nvidia-nccl-cu12": "nccl", "nvidia-nccl-cu11": "nccl",
            "nvidia-nccl-cu13": "nccl"}


def _clean_version(v: str) -> str | None:
    v = v.split("+", 1)[0]
    if len(v) > _MAX_VERSION:
        return None
    try:
        return str(Version(v))
    except InvalidVersion:
        m = re.match(r"\d+(?:\.\d+)*", v)
        return m.group(0) if m else None


def parse_environment(env: Any) -> dict[str, str]:
    """Normalised {package: version} from a dict or pasted text; unknown shapes give {}."""
    out: dict[str, str] = {}

    def put(name: str, ver: str) -> None:
        key = normalize_package(name.strip())
        key = _ALIASES.get(key, key)
        clean = _clean_version(str(ver))
        if clean and key not in out:
            out[key] = clean

    if isinstance(env, dict):
        for k, v in env.items():
            if isinstance(k, str) and isinstance(v, (str, int, float)):
                put(k, str(v))
        return out
    if not isinstance(env, str):
        return out
    for line in env.splitlines()[:5000]:
        line = line.strip()[:500]
        for key, pkg, rx in _SPECIAL:
            m = rx.search(line) if key in line else None
            if m:
                put(pkg, m.group(1))
        if len(line) > _MAX_PACKAGE_LINE:
            continue  # no pip freeze / collect_env / accelerate env line is this long
        for shape, rx in _PATTERNS:
            m = rx.match(line) if shape(line) else None
            if m:
                put(m.group(1), m.group(2))
                break
    return out


def applicability(entry: Entry, versions: dict[str, str]) -> tuple[bool | None, list[str]]:
    """(applies?, reasons). None when the versions say nothing about this entry."""
    if not versions:
        return None, []
    verdict: bool | None = None
    reasons: list[str] = []
    by_pkg: dict[str, list] = {}
    for row in entry.versions:
        by_pkg.setdefault(_package_key(row.package), []).append(row)
    for pkg, rows in by_pkg.items():
        if pkg not in versions:
            continue
        have = _version(versions[pkg])
        if have is None:
            continue
        affected = [r for r in rows if r.status == "affected"]
        cleared = [r for r in rows if r.status in ("fixed", "not_affected")]
        if any(have in _range(r.range) for r in cleared):
            verdict = False
            reasons.append(f"{pkg} {have} is outside the affected range (marked fixed/not affected)")
        elif affected and not any(have in _range(r.range) for r in affected):
            verdict = False
            ranges = ", ".join(r.range for r in affected)
            reasons.append(f"{pkg} {have} is outside the affected range {ranges}")
        elif affected:
            if verdict is None:
                verdict = True
            reasons.append(f"{pkg} {have} is in the affected range")
    return verdict, reasons


# what a KB's version texts parse to, made once per text (the KB's texts recur on every match; nothing here
# changes what it is given)
@lru_cache(maxsize=4096)
def _package_key(name: str) -> str:
    norm = normalize_package(name)
    return _ALIASES.get(norm, norm)


@lru_cache(maxsize=4096)
def _range(spec: str) -> SpecifierSet:
    return SpecifierSet(spec, prereleases=True)


@lru_cache(maxsize=4096)
def _requirement(req: str) -> tuple[str, SpecifierSet]:
    pkg, spec = parse_requirement(req)
    return _ALIASES.get(pkg, pkg), spec


def _version(text: str) -> Version | None:
    # the text comes from the user: only texts of a version's size are kept in the cache
    return _short_version(text) if len(text) <= 64 else _parse_version(text)


def _parse_version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


_short_version = lru_cache(maxsize=1024)(_parse_version)


def requirement_holds(req: str, versions: dict[str, str]) -> bool | None:
    """Whether e.g. 'torch>=2.2' holds for these versions; None when the package is unknown."""
    pkg, spec = _requirement(req)
    if pkg not in versions:
        return None
    have = _version(versions[pkg])
    return None if have is None else have in spec
