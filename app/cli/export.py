"""`faultline export`: every entry and guide as JSON or Markdown files."""
from __future__ import annotations

from pathlib import Path

import sys

from faultline.cli.common import add_db, local_db, missing_db
from faultline.settings import db_from_environment


def register(sub) -> None:
    p = sub.add_parser("export", help="export every entry and guide")
    add_db(p)
    p.add_argument("--format", choices=["json", "md"], default="json", help="file format (default: json)")
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the text (default: en)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write errors/ and guides/ into (created if missing)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.render.export import export_dir
    from faultline.store.load import kb_from_db

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"faultline export: --out {args.out} is a file; give a folder", file=sys.stderr)
        return 2
    named = args.db or db_from_environment()  # a named database is read as it is; the per-user one is built
    if named and (why := missing_db(named)):
        print(f"faultline export: {why}", file=sys.stderr)
        return 2
    db = local_db(args.db, args.kb)
    entries, guides = kb_from_db(db, args.kb)
    from faultline.store.written import read_counts

    n = export_dir(entries, guides, args.format, args.lang, Path(args.out), read_counts(db))
    print(f"wrote {n} files to {args.out}")
    return 0
