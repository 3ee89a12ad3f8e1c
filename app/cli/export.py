"""`faultline export`: every entry and guide as JSON or Markdown files."""
from __future__ import annotations

from pathlib import Path

from app.cli.common import add_db
from app.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("export", help="export every entry and guide")
    add_db(p)
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=run)


def run(args) -> int:
    from app.render.export import export_dir
    from app.store.load import kb_from_db

    entries, guides = kb_from_db(args.db or default_db(), args.kb)
    from app.store.written import read_counts

    n = export_dir(entries, guides, args.format, args.lang, Path(args.out), read_counts(args.db or default_db()))
    print(f"wrote {n} files to {args.out}")
    return 0
