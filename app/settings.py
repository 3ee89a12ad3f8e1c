"""Where things are: the SQLite file and the knowledge-base directory."""
from __future__ import annotations

import os
from pathlib import Path

MAX_BODY_BYTES = 1 << 20  # 1 MiB, for /match


def default_db() -> str:
    return os.environ.get("FAULTLINE_DB") or str(Path.cwd() / "faultline.db")


def default_kb() -> Path:
    env = os.environ.get("FAULTLINE_KB")
    if env:
        return Path(env)
    here = Path.cwd() / "kb"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parent.parent / "kb"
