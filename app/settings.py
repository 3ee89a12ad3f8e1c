"""Where things are: the SQLite file and the knowledge-base directory."""
from __future__ import annotations

import os
from pathlib import Path

MAX_BODY_BYTES = 1 << 20  # 1 MiB, for /match


def default_db() -> str:
    """The database: $DATABASE_URL (e.g. postgresql+psycopg://user@host:5432/db), else the SQLite file
    $FAULTLINE_DB, else ./faultline.db."""
    return os.environ.get("DATABASE_URL") or os.environ.get("FAULTLINE_DB") or str(Path.cwd() / "faultline.db")


def default_kb() -> Path:
    env = os.environ.get("FAULTLINE_KB")
    if env:
        return Path(env)
    here = Path.cwd() / "kb"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parent.parent / "kb"
