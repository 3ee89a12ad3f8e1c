"""Helpers shared by the CLI verbs."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="SQLite file (default: $FAULTLINE_DB or ./faultline.db)")


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
