"""The inbox of unknown errors: the first failure line of a paste nothing matched, scrubbed of
private strings, masked, and grouped by a normalised fingerprint.

Scrubbing runs before anything is stored: paths, user and host names, IP addresses, e-mail
addresses, URLs, tokens and keys are replaced by placeholders.  The operator turns the inbox on
with ``FAULTLINE_INBOX=1``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import re
from typing import Any

from app.matching.mask import mask

SAMPLE_MAX = 400

_SOURCE_FILE = re.compile(r"\.(?:py|pyx|c|cc|cpp|cxx|h|hpp|cu|cuh):\d+$")

# Order matters: the most specific secrets first, then addresses, then paths and names.
_SCRUB: list[tuple[re.Pattern[str], Any]] = [
    # credentials in URLs and whole URLs (query strings often carry keys)
    (re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I), "<url>"),
    # well-known token shapes: Hugging Face, OpenAI-style, GitHub, GitLab, Slack, AWS, Google, JWT
    (re.compile(r"\bhf_[A-Za-z0-9]{16,}\b"), "<token>"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}\b"), "<token>"),
    (re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b|\bgithub_pat_[A-Za-z0-9_]{20,}\b"), "<token>"),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}\b"), "<token>"),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"), "<token>"),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "<token>"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}\b"), "<token>"),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b"), "<token>"),
    (re.compile(r"\bflt_[A-Za-z0-9_-]{16,}"), "<token>"),
    # "Bearer xyz", "token=xyz", "api_key: xyz", "password 'xyz'"...
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.I), r"\1 <token>"),
    (re.compile(r"\b([\w-]*(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth|credential)s?[\w-]*)"
                r"(\s*[=:]\s*|\s+)(['\"]?)[^\s'\",;]+\3", re.I), r"\1\2<secret>"),
    # e-mail addresses and user@host
    (re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "<email>"),
    (re.compile(r"\b[\w.-]+@[\w.-]+\b"), "<user>@<host>"),
    # IP addresses (v4 with an optional port, v6)
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"(?<![\w:.])(?:[0-9a-f]{1,4}:{1,2}){2,7}[0-9a-f]{1,4}(?![\w:])", re.I), "<ip>"),
    (re.compile(r"\[(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\](?::\d+)?", re.I), "<ip>"),
    # paths: Windows, UNC, home-relative and absolute POSIX paths
    (re.compile(r"\b[A-Za-z]:\\[^\s'\"<>|]*"), "<path>"),
    (re.compile(r"\\\\[^\s'\"<>|]+"), "<path>"),
    (re.compile(r"(?<![\w.])(?:~|\.{1,2})?/[^\s'\",:;()\[\]{}<>]+"), "<path>"),
    # host names: AWS-style ip-10-0-0-1, "host=..." / "hostname: ...", a name before a port,
    # dotted names under a domain-like suffix, and NCCL's "host:pid:tid" line prefix
    (re.compile(r"\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\b"), "<host>"),
    (re.compile(r"\b(host(?:name)?|node(?:name)?|user(?:name)?|login|owner)(\s*[=:]\s*|\s+)(['\"]?)[\w.-]+\3", re.I),
     r"\1\2<name>"),
    (re.compile(r"\b[A-Za-z][\w-]*(?:\.[\w-]+)*:\d{2,5}\b"),
     lambda m: m.group(0) if _SOURCE_FILE.search(m.group(0)) else "<host>:<port>"),
    (re.compile(r"\b(?:[\w-]+\.)+(?:com|net|org|io|ai|dev|edu|gov|local|localdomain|internal|lan|corp|home|cluster"
                r"|cn|de|uk|fr|jp|us|eu)\b", re.I), "<host>"),
    (re.compile(r"^[\w.-]+:\d+:\d+\s"), "<host>:<n>:<n> "),
    # long opaque strings that look like keys (letters and digits mixed, 24+ characters)
    (re.compile(r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}\b"), "<secret>"),
]
_RANK_PREFIX = re.compile(r"^\s*(?:\[(?:default)?rank\s*\d+\]:?|\[\d+\]:|rank\s*\d+:)\s*", re.I)
_TIMESTAMP = re.compile(r"^\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*")
_FAILURE = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Failure|Interrupt|Warning)\b|\berror\b|\bfailed\b|\bfatal\b", re.I)


def scrub(line: str) -> str:
    """The line with every private string replaced by a placeholder."""
    out = line
    for rx, repl in _SCRUB:
        out = rx.sub(repl, out)
    return out


def first_failure_line(result: dict[str, Any], text: str) -> str | None:
    """The first failure line the matcher found, else the first line that looks like an error."""
    rc = result.get("root_cause") or {}
    if isinstance(rc, dict) and rc.get("line"):
        return str(rc["line"])
    for raw in text.splitlines():
        if _FAILURE.search(raw) and raw.strip():
            return raw
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else None


def sample_of(line: str) -> str:
    """A line ready to store: prefixes dropped, scrubbed, then masked, and bounded in length."""
    line = _TIMESTAMP.sub("", _RANK_PREFIX.sub("", line.strip()))
    line = _RANK_PREFIX.sub("", _TIMESTAMP.sub("", line))
    out = mask(scrub(line)).strip()
    return out[:SAMPLE_MAX]


def fingerprint(sample: str) -> str:
    """Same error, same fingerprint: case, spacing and quoting do not matter."""
    norm = re.sub(r"\s+", " ", sample).strip().lower().replace('"', "'")
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:16]


def enabled() -> bool:
    from app.settings import settings

    return settings().inbox


def group_of(result: dict[str, Any], text: str) -> tuple[str, str] | None:
    """(fingerprint, sample) of a paste nothing matched; None when something matched or no line qualifies."""
    if result.get("matches"):
        return None
    line = first_failure_line(result, text)
    if not line:
        return None
    sample = sample_of(line)
    if not sample:
        return None
    return fingerprint(sample), sample


def group_view(row) -> dict[str, Any]:
    from app.store.written import iso

    return {"fingerprint": row.fingerprint, "count": row.count, "sample": row.sample,
            "first_seen": iso(row.first_seen), "last_seen": iso(row.last_seen)}


def scaffold_fields(store, fp: str) -> dict[str, Any] | None:
    """What an inbox group can give a new entry's scaffold (`faultline new --from-inbox FINGERPRINT`).

    The sample is masked (numbers read ``<n>``, paths ``<path>``): it is a start for the entry's
    error text and first signature example, not the exact message, so both stay placeholders
    that the curator must replace.  None when no group has this fingerprint.
    """
    row = store.inbox_group(fp)
    if row is None:
        return None
    day = _dt.datetime.fromtimestamp(row.first_seen, _dt.timezone.utc).date().isoformat()
    return {
        "inbox": group_view(row),
        "sample": row.sample,
        "error_text": f"TODO(error_text): the exact message; the inbox saw (masked): {row.sample}",
        "signature_example": f"TODO(example): a full log line; the inbox saw (masked): {row.sample}",
        "first_seen": day,
        "seen": row.count,
    }


def from_inbox(target: str, fp: str) -> dict[str, Any] | None:
    """scaffold_fields() for the inbox in a database (a path or URL, as `--db` takes): for `faultline new --from-inbox`."""
    from app.store.written import WrittenStore

    store = WrittenStore.open(target)
    try:
        return scaffold_fields(store, fp)
    finally:
        store.close()
