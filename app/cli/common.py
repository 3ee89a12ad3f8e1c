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
