"""Helpers shared by the CLI verbs."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


DB_HELP = "SQLite file or database URL (default: $DATABASE_URL, $FAULTLINE_DB, or the per-user data folder)"


def add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, metavar="PATH|URL", help=DB_HELP)


def _kb_mtime(kb: Path) -> float:
    """The newest modification time of what a load reads from ``kb`` (entries, guides, records, ids)."""
    newest = 0.0
    for part in ("entries", "guides", "verification", "canonical-ids.txt"):
        base = kb / part
        for f in (base.rglob("*") if base.is_dir() else [base]):
            try:
                newest = max(newest, f.stat().st_mtime)
            except OSError:
                pass
    return newest


def _loaded_at(db: Path) -> float | None:
    """When the knowledge base in the SQLite file ``db`` was loaded (None: it holds none)."""
    import datetime as _dt
    import sqlite3

    try:
        con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM kb_meta WHERE key = 'loaded_at'").fetchone()
        finally:
            con.close()
        return _dt.datetime.fromisoformat(row[0]).timestamp() if row else None
    except (sqlite3.Error, ValueError, OSError):
        return None


def local_db(db: str | None, kb: str | Path) -> str:
    """The database a verb reads: ``--db``, else $DATABASE_URL / $FAULTLINE_DB as given (never built
    here), else the per-user file, which is built from ``kb`` when it is missing or older than ``kb``
    (one line on stderr says where)."""
    from faultline.settings import db_from_environment, user_db

    chosen = db or db_from_environment()
    if chosen:
        return chosen
    path = user_db()
    loaded = _loaded_at(path) if path.is_file() else None
    if loaded is not None and loaded + 1 >= _kb_mtime(Path(kb)):  # loaded_at has whole seconds
        return str(path)
    from faultline.store.load import load_into_db

    path.parent.mkdir(parents=True, exist_ok=True)
    n, _ = load_into_db(kb, path, force=True)  # the shipped KB is the truth for this file, even when smaller
    print(f"faultline: {'rebuilt' if loaded is not None else 'built'} the database {path} "
          f"from the knowledge base in {kb} ({n} entries)", file=sys.stderr, flush=True)
    return str(path)


def read_input(path: str) -> str:
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return data.decode("utf-8", errors="replace")


def _at_least(text: str, least: float, kind=int) -> float:
    try:
        n = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
    if not n >= least or n == float("inf"):  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"{n} is less than {least}")
    return n


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a usage error otherwise)."""
    return _at_least(text, 1)


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of at least 0."""
    return _at_least(text, 0)


def non_negative_float(text: str) -> float:
    """An argparse type: a number of at least 0 (seconds)."""
    return _at_least(text, 0, float)


def missing_db(db: str) -> str | None:
    """Why the SQLite file ``db`` cannot be read as it is (it does not exist, or is a folder), else None.
    A database URL is not checked here."""
    if "://" in db:
        return None
    path = Path(db)
    if path.is_dir():
        return f"{db} is a folder, not a database file"
    if not path.exists():
        return f"no database at {db}; build it first with `faultline load --db {db}`"
    return None
