"""The inbox of unknown errors: the first failure line of a paste nothing matched, scrubbed of
private strings, masked, and grouped by a normalised fingerprint.

Scrubbing runs before anything is stored: paths, user and host names, IP addresses, e-mail
addresses, URLs, tokens and keys are replaced by placeholders.  The operator turns the inbox on
with ``FAULTLINE_INBOX=1``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
from typing import Any

import re2

from faultline.matching.mask import mask

SAMPLE_MAX = 400
# Only this much of a failure line is scrubbed and kept: the sample is cut to SAMPLE_MAX anyway, and a
# bound on the input keeps the scrubbing's cost fixed whatever the paste (a 1 MiB line costs what 1,000 chars do)
SCRUB_WINDOW = 1000
# Groups kept at most; past that, the oldest groups seen only once make room (app/store/written.py)
MAX_GROUPS = 10_000

# Every pattern here is RE2 (linear time, no backtracking).  RE2 has no look-around and no
# back-references: where the old patterns had them, a capture group or a check in the replacement
# function does the same job.
_W = r"\p{L}\p{N}_"  # a word character, Unicode letters and digits included (RE2's \w is ASCII only)


def _unicode_words(pattern: str) -> str:
    r"""``\w`` as Unicode word characters, inside a character class or outside one."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            pair = pattern[i:i + 2]
            out.append((_W if in_class else f"[{_W}]") if pair == r"\w" else pair)
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class and out and out[-1] != "[":
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)


def _rx(pattern: str, ignore_case: bool = False):
    return re2.compile(("(?i)" if ignore_case else "") + _unicode_words(pattern))


_SOURCE_FILE = _rx(r"\.(?:py|pyx|c|cc|cpp|cxx|h|hpp|cu|cuh):\d+$")
_HOSTPORT_SKIP = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _next_char(m) -> str:
    end = m.end()
    return m.string[end] if end < len(m.string) else ""


def _ipv6(m) -> str:
    nxt = _next_char(m)  # the old pattern's (?![\w:])
    if nxt and (nxt == ":" or nxt.isalnum() or nxt == "_"):
        return m.group(0)
    return m.group(1) + "<ip>"


def _aws_secret(m) -> str:
    key, nxt = m.group(2), _next_char(m)
    if nxt and (nxt.isalnum() or nxt in "/+="):
        return m.group(0)
    mixed = any(c.isupper() for c in key) and any(c.islower() for c in key) \
        and any(c.isdigit() or c in "/+" for c in key)
    return m.group(1) + "<secret>" if mixed else m.group(0)


def _opaque(m) -> str:
    s = m.group(0)  # the old pattern's look-aheads: letters and digits mixed
    return "<secret>" if any(c.isdigit() for c in s) and any(c.isalpha() for c in s) else s


def _host_port(m) -> str:
    return m.group(0) if _SOURCE_FILE.search(m.group(0)) else "<host>:<port>"


# Order matters: the most specific secrets first, then addresses, then paths and names.
_VALUE = r"""(?:'[^\s'",;]+'|"[^\s'",;]+"|[^\s'",;]+)"""  # a value, bare or in matching quotes
_SCRUB: list[tuple[Any, Any]] = [
    # credentials in URLs and whole URLs (query strings often carry keys)
    (_rx(r"\b[a-z][a-z0-9+.-]*://\S+", True), "<url>"),
    # well-known token shapes: Hugging Face, OpenAI-style, GitHub, GitLab, Slack, AWS, Google, JWT
    (_rx(r"\bhf_[A-Za-z0-9]{16,}\b"), "<token>"),
    (_rx(r"\bsk-[A-Za-z0-9_-]{16,}\b"), "<token>"),
    (_rx(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b|\bgithub_pat_[A-Za-z0-9_]{20,}\b"), "<token>"),
    (_rx(r"\bglpat-[A-Za-z0-9_-]{16,}\b"), "<token>"),
    (_rx(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"), "<token>"),
    (_rx(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), "<token>"),
    (_rx(r"\bAIza[0-9A-Za-z_-]{30,}\b"), "<token>"),
    (_rx(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b"), "<token>"),
    (_rx(r"\bflt_[A-Za-z0-9_-]{16,}"), "<token>"),
    # AWS ARNs (account and resource name), and AWS secret access keys (40 chars of base64, slashes
    # included: before the path rule, which would keep the part before the first slash)
    (_rx(r"\barn:aws[A-Za-z0-9-]*:[A-Za-z0-9-]*:[A-Za-z0-9-]*:[0-9]*:[^\s'\",;]+"), "<arn>"),
    (_rx(r"(^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})"), _aws_secret),
    # "Bearer xyz", "token=xyz", "api_key: xyz", "password 'xyz'"...
    (_rx(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", True), r"\1 <token>"),
    (_rx(r"\b([\w-]*(?:token|secret|passw(?:or)?d|pwd|api[_-]?key|access[_-]?key|auth|credential)s?[\w-]*)"
         r"(\s*[=:]\s*|\s+)" + _VALUE, True), r"\1\2<secret>"),
    # e-mail addresses and user@host
    (_rx(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"), "<email>"),
    (_rx(r"\b[\w.-]+@[\w.-]+\b"), "<user>@<host>"),
    # IP addresses (v4 with an optional port, v6)
    (_rx(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (_rx(r"(^|[^\w:.])((?:[0-9a-f]{1,4}:{1,2}){2,7}[0-9a-f]{1,4})", True), _ipv6),
    (_rx(r"\[(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}\](?::\d+)?", True), "<ip>"),
    # paths: Windows, UNC, home-relative and absolute POSIX paths
    (_rx(r"\b[A-Za-z]:\\[^\s'\"<>|]*"), "<path>"),
    (_rx(r"\\\\[^\s'\"<>|]+"), "<path>"),
    (_rx(r"(^|[^\w.])(?:~|\.{1,2})?/[^\s'\",:;()\[\]{}<>]+"), r"\1<path>"),
    # host names: AWS-style ip-10-0-0-1, "host=..." / "hostname: ...", a name before a port,
    # dotted names under a domain-like suffix, and NCCL's "host:pid:tid" line prefix
    (_rx(r"\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}\b"), "<host>"),
    (_rx(r"\b(host(?:name)?|node(?:name)?|user(?:name)?|login|owner)(\s*[=:]\s*|\s+)"
         r"(?:'[\w.-]+'|\"[\w.-]+\"|[\w.-]+)", True), r"\1\2<name>"),
    (_rx(r"\b[A-Za-z][\w-]*(?:\.[\w-]+)*:\d{2,5}\b"), _host_port),
    (_rx(r"\b(?:[\w-]+\.)+(?:com|net|org|io|ai|dev|edu|gov|local|localdomain|internal|lan|corp|home|cluster"
         r"|cn|de|uk|fr|jp|us|eu)\b", True), "<host>"),
    (_rx(r"^[\w.-]+:\d+:\d+\s"), "<host>:<n>:<n> "),
    # long opaque strings that look like keys (letters and digits mixed, 24+ characters)
    (_rx(r"\b[A-Za-z0-9_-]{24,}\b"), _opaque),
]
_RANK_PREFIX = _rx(r"^\s*(?:\[(?:default)?rank\s*\d+\]:?|\[\d+\]:|rank\s*\d+:)\s*", True)
_TIMESTAMP = _rx(r"^\s*\[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s*")
_FAILURE = _rx(r"\b[A-Z]\w*(?:Error|Exception|Failure|Interrupt|Warning)\b|\berror\b|\bfailed\b|\bfatal\b", True)
_SPACES = _rx(r"\s+")


def scrub(line: str) -> str:
    """The line (its first SCRUB_WINDOW characters) with every private string replaced by a placeholder."""
    out = line[:SCRUB_WINDOW]
    for rx, repl in _SCRUB:
        out = rx.sub(repl, out)
    return out


def first_failure_line(result: dict[str, Any], text: str) -> str | None:
    """The first failure line the matcher found, else the first line that looks like an error."""
    rc = result.get("root_cause") or {}
    if isinstance(rc, dict) and rc.get("line"):
        return str(rc["line"])
    last = None
    for raw in text.splitlines():
        if raw.strip():
            if _FAILURE.search(raw):
                return raw
            last = raw
    return last


def sample_of(line: str) -> str:
    """A line ready to store: prefixes dropped, scrubbed, then masked, and bounded in length."""
    line = line.strip()[:SCRUB_WINDOW]
    line = _TIMESTAMP.sub("", _RANK_PREFIX.sub("", line))
    line = _RANK_PREFIX.sub("", _TIMESTAMP.sub("", line))
    out = mask(scrub(line)).strip()
    return out[:SAMPLE_MAX]


def fingerprint(sample: str) -> str:
    """Same error, same fingerprint: case, spacing and quoting do not matter."""
    norm = _SPACES.sub(" ", sample).strip().lower().replace('"', "'")
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:16]


def enabled() -> bool:
    from faultline.settings import settings

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
    from faultline.store.written import iso

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
    from faultline.store.written import WrittenStore

    store = WrittenStore.open(target)
    try:
        return scaffold_fields(store, fp)
    finally:
        store.close()
