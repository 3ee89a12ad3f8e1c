"""The literal parts of a signature's pattern, searched in a released wheel/sdist or a source file.

A released package is read member by member (zip for wheels, tar for sdists), never unpacked:
source files are read as text, shared objects as the printable runs of their bytes (what `strings`
prints).  Both become one lowercase "text" per release, in which a pattern's literal runs
(``app.matching.literals.required_literals``) are looked up.  Source text is normalised first so
that a message split over two string literals ("...does not "  "recognize...") or written with
escaped quotes still reads as the message.
"""
from __future__ import annotations

import builtins
import re
import tarfile
import zipfile
from pathlib import Path

from faultline.matching.literals import required_literals

SOURCE_SUFFIXES = (".py", ".pyi", ".pyx", ".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".rs", ".in")
BINARY_SUFFIXES = (".so", ".dylib", ".dll", ".pyd")
MAX_MEMBER = 400 * 1024 * 1024  # a shared object larger than this is read no further
MIN_RUN = 6  # shortest printable run kept from a binary
# "RuntimeError: ", "torch.AcceleratorError: ", "[rank0]: ": printed around the message, not part of its text
_PREFIX = re.compile(r"^\s*(?:\[rank\d*\]:\s*)?(?:[\w.]*(?:error|exception|warning|exit|interrupt|invalid)\w*:\s*)+")
_JOIN = re.compile(r"""(?<!\\)["']\s*\\?\s*\n\s*(?:[rbfu]{1,2})?["']""", re.IGNORECASE)
_ADJ = re.compile(r"""(?<!\\)["'][ \t]+(?:[rbfu]{1,2})?["']""", re.IGNORECASE)
_REPR = re.compile(r"""[<>'"\[\]{}()]""")
_PRINTABLE = re.compile(rb"[\x20-\x7e\t]{%d,}" % MIN_RUN)
_CLASS = re.compile(r"(?:^|[\s.:\]])(\w+(?:error|exception))(?=:)")
# Python's own exception classes: in every source, so they say nothing about a release
_BUILTIN = {n.lower() for n in dir(builtins) if n.endswith(("Error", "Exception"))}


def message_literals(pattern: str) -> list[str]:
    """The literal runs of ``pattern`` worth searching: lowercase, exception-class prefixes stripped,
    at least 4 letters or digits each."""
    out = []
    for lit in required_literals(pattern):
        # a package's own exception class ("DatasetGenerationCastError: ...") is part of what it prints:
        # the sentence alone may be shared with another class of the same package
        m = _PREFIX.match(lit)
        for cls in _CLASS.findall(m.group(0)) if m else []:
            if cls not in _BUILTIN and cls not in out:
                out.append(cls)
        # quotes and brackets are often a value's repr ("<class '...'>", "['id', 'text']", "torch.Size([0])",
        # a tuple "('cuda', 'xpu')"), not source text
        for frag in _REPR.split(_PREFIX.sub("", lit)):
            if sum(ch.isalnum() for ch in frag) >= 4 and frag not in out:
                out.append(frag)
    return out


def normalise_source(text: str) -> str:
    """Lowercase source text with adjacent string literals joined and quote escapes undone."""
    text = _JOIN.sub("", text)
    text = _ADJ.sub("", text)
    return text.replace("\\'", "'").replace('\\"', '"').lower()


def binary_strings(data: bytes) -> str:
    return "\n".join(m.group().decode("ascii") for m in _PRINTABLE.finditer(data)).lower()


def member_text(name: str, data: bytes) -> str | None:
    low = name.lower()
    if low.endswith(SOURCE_SUFFIXES):
        return normalise_source(data.decode("utf-8", errors="replace"))
    if low.endswith(BINARY_SUFFIXES) or ".so." in low:
        return binary_strings(data)
    return None


def archive_text(path: str | Path) -> str:
    """All searchable text of a wheel, zip or tar(.gz/.bz2/.xz) sdist, member by member."""
    path = Path(path)
    parts: list[str] = []
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.is_dir() or info.file_size > MAX_MEMBER:
                    continue
                t = member_text(info.filename, zf.read(info))
                if t:
                    parts.append(t)
    elif tarfile.is_tarfile(path):
        with tarfile.open(path) as tf:
            for m in tf:
                if not m.isfile() or m.size > MAX_MEMBER:
                    continue
                fh = tf.extractfile(m)
                t = member_text(m.name, fh.read()) if fh else None
                if t:
                    parts.append(t)
    else:
        raise ValueError(f"{path.name}: neither a zip (wheel) nor a tar (sdist)")
    return "\n".join(parts)


def contains(text: str, literals: list[str]) -> bool:
    """Whether every literal occurs in ``text`` (already lowercase)."""
    return bool(literals) and all(lit in text for lit in literals)


def missing(text: str, literals: list[str]) -> list[str]:
    return [lit for lit in literals if lit not in text]
