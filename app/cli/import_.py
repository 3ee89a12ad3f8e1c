"""`faultline import deadends FILE`: the public peer corpus into a separate database."""
from __future__ import annotations

from pathlib import Path


def register(sub) -> None:
    p = sub.add_parser("import", help="import a peer corpus into a separate database")
    p.add_argument("kind", choices=["deadends"], help="the corpus's kind (only deadends)")
    p.add_argument("file", help="the corpus file, deadends.dev's canons.jsonl")
    p.add_argument("--db", default=None, help="SQLite file for the peer corpus, kept apart from Faultline's own (default: ./deadends.db)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.peers.deadends import import_deadends

    n, skipped = import_deadends(Path(args.file), args.db or "deadends.db")
    print(f"imported {n} deadends.dev entries into {args.db or 'deadends.db'} ({skipped} skipped)")
    return 0
