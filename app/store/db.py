"""Database engines (an SQLite file or a PostgreSQL URL) and schema migration (Alembic, in-process).

A *target* is what `--db`, ``FAULTLINE_DB`` or ``DATABASE_URL`` name: a path to an SQLite file
(the embedded default) or a SQLAlchemy URL such as ``postgresql+psycopg://user@host:5432/db``.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import create_engine

ROOT = Path(__file__).resolve().parent.parent.parent


def is_url(target: str | Path) -> bool:
    return "://" in str(target)


def sqlite_path(target: str | Path) -> Path | None:
    """The file behind an SQLite target; None for a server database."""
    if not is_url(target):
        return Path(target)
    url = make_url(str(target))
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database)
    return None


def resolve_target(target: str | Path) -> str:
    """A URL as given; a file path made absolute (so that worker processes find the same file)."""
    return str(target) if is_url(target) else str(Path(target).resolve())


def display(target: str | Path) -> str:
    """The target without a password, for messages."""
    return make_url(str(target)).render_as_string(hide_password=True) if is_url(target) else str(target)


def _writable(path: Path) -> bool:
    if path.exists():
        return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    return os.access(path.parent if str(path.parent) else Path("."), os.W_OK)


def _wal_mode(path: Path) -> bool:
    """The file's header says WAL (bytes 18-19 are 2, 2)."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return False
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def engine_for(target: str | Path, readonly: bool = False) -> Engine:
    """An engine for an SQLite file or a database URL.

    SQLite files are opened in WAL mode when they can be written; a read-only file (or
    ``readonly=True``) is opened with ``mode=ro`` and no journal change, so a read-only
    volume can be served.  Taking an SQLite connection never waits for the pool (an SQLite
    connection is cheap; connections beyond five are closed when given back), so a read on the
    event loop (app/api/match.py) can never be held up by worker threads that wait for the write lock.
    """
    path = sqlite_path(target)
    if path is None:
        url = make_url(str(target))
        args = {"connect_timeout": 5} if url.get_backend_name() == "postgresql" else {}
        # a database that does not answer fails a request in seconds, not after the OS's TCP timeout
        return create_engine(str(target), pool_pre_ping=True, pool_size=5, max_overflow=5, connect_args=args)
    ro = readonly or (path.exists() and not _writable(path))
    if ro:
        uri = f"file:{path.resolve()}?mode=ro"
        if path.exists() and not os.access(path.parent, os.W_OK) and _wal_mode(path):
            # a WAL-mode file (as `faultline load` leaves it) in a directory SQLite cannot create its
            # -shm file in: nobody can be writing it there, so it is opened as immutable
            uri += "&immutable=1"
        eng = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False,
                                                                        timeout=30))  # one per thread
    else:
        if not path.exists() and path.parent.is_dir():
            # created readable by its owner only: it will hold report notes, environments and inbox
            # samples (SQLite gives its -wal and -shm files the same mode)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        eng = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False, "timeout": 30},
                            max_overflow=-1)

    @event.listens_for(eng, "connect")
    def _pragmas(dbapi_conn, _record):  # pragma: no cover - trivial
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        if not ro:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    return eng


def migrations_dir() -> Path:
    """The Alembic scripts: the repository's migrations/ (a checkout or an editable install), else the copy
    installed inside the package (pyproject.toml maps migrations/ to faultline/migrations in a wheel)."""
    here = ROOT / "migrations"
    if (here / "env.py").is_file():
        return here
    return Path(__file__).resolve().parent.parent / "migrations"


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision."""
    # Alembic (with Mako and Pygments, about 10 MB) is loaded only where a schema is made or brought up
    # to date, not in every worker of a service whose database is ready
    from alembic import command
    from alembic.config import Config

    ini = ROOT / "alembic.ini"
    cfg = Config(str(ini)) if ini.is_file() else Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
