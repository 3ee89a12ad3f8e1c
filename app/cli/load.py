"""`faultline load`: validate kb/ and write it into the database in one transaction."""
from __future__ import annotations

import sys

from faultline.cli.common import add_db
from faultline.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("load", help="validate kb/ and build the SQLite file")
    add_db(p)
    p.add_argument("--force", action="store_true",
                   help="load even when the new KB has less than half the served entries")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.kbfiles import KBError
    from faultline.store.load import load_into_db

    try:
        n_entries, n_guides = load_into_db(args.kb, args.db or default_db(), force=args.force)
    except KBError as exc:
        print(f"faultline load: the knowledge base was NOT loaded ({len(exc.problems)} problems):", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"loaded {n_entries} entries and {n_guides} guides into {args.db or default_db()}")
    return 0
