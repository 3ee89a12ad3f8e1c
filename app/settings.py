"""The service's settings, in one place: every environment variable Faultline reads.

``settings()`` reads the environment each time it is called, so a test or an operator that changes a
variable sees the change at the next request; what it derives from the values (paths, numbers) is
remembered per set of values, so a request pays for a few dictionary lookups, not for file-system calls.  Names:

| variable | what | default |
|---|---|---|
| DATABASE_URL | a database URL, e.g. postgresql+psycopg://user@host:5432/db | (unset) |
| FAULTLINE_DB | the SQLite file when DATABASE_URL is unset | faultline.db in the per-user data folder (see user_db) |
| FAULTLINE_KB | the knowledge-base folder | ./kb (when it holds entries/), else the repository's kb/ beside app/, else the one installed with the package |
| XDG_DATA_HOME | where the per-user data folder is on Linux | ~/.local/share |
| FAULTLINE_RELOAD_POLL | seconds between checks of the database for a newer KB | 0.5 |
| FAULTLINE_MATCH_BUDGET_MS | a CPU safety net per /match, in ms, never below 4000 (0: none); answers never depend on it | 4000 |
| FAULTLINE_INBOX | 1 records unknown errors in the inbox | off |
| FAULTLINE_REPORTS_PER_MINUTE | outcome reports per token and minute | 30 |
| FAULTLINE_MCP_ALLOWED_HOSTS | extra Host values the MCP endpoint accepts (comma-separated) | (none) |
| FAULTLINE_SERVER, FAULTLINE_TOKEN | the CLI's and MCP tools' server URL and token | (unset) |
| FAULTLINE_LOGSET_MAX_FILES | files (archive members included) in one match of several logs | 512 |
| FAULTLINE_LOGSET_MAX_FILE_BYTES | bytes of one of those files, uncompressed | 8388608 (8 MiB) |
| FAULTLINE_LOGSET_MAX_TOTAL_BYTES | bytes of all of them together, uncompressed (and of an upload) | 16777216 (16 MiB) |
| FAULTLINE_LOGSET_MAX_RATIO | uncompressed / compressed size of an archive member | 200 |
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MAX_BODY_BYTES = 1 << 20  # 1 MiB, for /match


def _float(name: str, default: float) -> float:
    try:
        v = float(os.environ.get(name, "").strip() or default)
    except ValueError:
        return default
    return v if v >= 0 else default


def _positive_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


@dataclass(frozen=True)
class Settings:
    db: str
    kb: Path
    reload_poll_s: float
    match_budget_ms: float
    inbox: bool
    reports_per_minute: int
    mcp_allowed_hosts: tuple[str, ...]
    server: str | None
    token: str | None
    logset_max_files: int = 512
    logset_max_file_bytes: int = 8 << 20
    logset_max_total_bytes: int = 16 << 20
    logset_max_ratio: int = 200
    # the service's public address (e.g. https://faultline.example.org) for absolute links in pages;
    # unset: links are relative, never built from the request's Host header
    public_url: str | None = None


_NAMES = ("DATABASE_URL", "FAULTLINE_DB", "FAULTLINE_KB", "FAULTLINE_RELOAD_POLL", "FAULTLINE_MATCH_BUDGET_MS",
          "FAULTLINE_INBOX", "FAULTLINE_REPORTS_PER_MINUTE", "FAULTLINE_MCP_ALLOWED_HOSTS", "FAULTLINE_SERVER",
          "FAULTLINE_TOKEN", "FAULTLINE_LOGSET_MAX_FILES", "FAULTLINE_LOGSET_MAX_FILE_BYTES",
          "FAULTLINE_LOGSET_MAX_TOTAL_BYTES", "FAULTLINE_LOGSET_MAX_RATIO", "FAULTLINE_PUBLIC_URL")


# os.environ keeps the environment in a dict of encoded names (POSIX: bytes) that every change to os.environ
# updates in place: the values are read from it by their encoded names, without decoding each one
_ENCODED_NAMES = tuple(os.environ.encodekey(n) for n in _NAMES) if hasattr(os.environ, "encodekey") else None


def settings() -> Settings:
    data = getattr(os.environ, "_data", None)
    if _ENCODED_NAMES is not None and isinstance(data, dict):
        values = tuple(map(data.get, _ENCODED_NAMES))  # what identifies the values: read again at the next call
    else:
        values = tuple(map(os.environ.get, _NAMES))
    return _settings(values, os.getcwd())


@lru_cache(maxsize=16)
def _settings(values: tuple, cwd: str) -> Settings:
    env = os.environ.get
    return Settings(
        db=default_db(),
        kb=default_kb(),
        reload_poll_s=_float("FAULTLINE_RELOAD_POLL", 0.5),
        match_budget_ms=_float("FAULTLINE_MATCH_BUDGET_MS", 4000.0),
        inbox=env("FAULTLINE_INBOX", "").strip().lower() in ("1", "true", "yes", "on"),
        reports_per_minute=_positive_int("FAULTLINE_REPORTS_PER_MINUTE", 30),
        mcp_allowed_hosts=tuple(h.strip() for h in env("FAULTLINE_MCP_ALLOWED_HOSTS", "").split(",") if h.strip()),
        server=env("FAULTLINE_SERVER") or None,
        token=env("FAULTLINE_TOKEN") or None,
        logset_max_files=_positive_int("FAULTLINE_LOGSET_MAX_FILES", 512),
        logset_max_file_bytes=_positive_int("FAULTLINE_LOGSET_MAX_FILE_BYTES", 8 << 20),
        logset_max_total_bytes=_positive_int("FAULTLINE_LOGSET_MAX_TOTAL_BYTES", 16 << 20),
        logset_max_ratio=_positive_int("FAULTLINE_LOGSET_MAX_RATIO", 200),
        public_url=(env("FAULTLINE_PUBLIC_URL") or "").strip().rstrip("/") or None,
    )


def user_db() -> Path:
    """The default database, one per user, never in the current folder: ``faultline/faultline.db`` in
    $XDG_DATA_HOME (else ~/.local/share) on Linux, ~/Library/Application Support on macOS,
    %LOCALAPPDATA% on Windows."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or os.environ.get("APPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".local" / "share"  # the spec ignores a relative one
    return base / "faultline" / "faultline.db"


def db_from_environment() -> str | None:
    """$DATABASE_URL (e.g. postgresql+psycopg://user@host:5432/db), else the SQLite file $FAULTLINE_DB."""
    return os.environ.get("DATABASE_URL") or os.environ.get("FAULTLINE_DB") or None


def default_db() -> str:
    """The database: $DATABASE_URL, else $FAULTLINE_DB, else the per-user file (``user_db``)."""
    return db_from_environment() or str(user_db())


# the knowledge base installed inside the package (pyproject.toml maps kb/ to faultline/kb in a wheel)
PACKAGED_KB = Path(__file__).resolve().parent / "kb"
# the repository's kb/, beside app/ (a source checkout or an editable install)
SOURCE_KB = Path(__file__).resolve().parent.parent / "kb"


def default_kb() -> Path:
    env = os.environ.get("FAULTLINE_KB")
    if env:
        return Path(env)
    here = Path.cwd() / "kb"
    if (here / "entries").is_dir():  # a folder merely called kb/ in someone's project is not a KB
        return here
    if (PACKAGED_KB / "entries").is_dir():
        return PACKAGED_KB
    return SOURCE_KB
