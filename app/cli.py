"""The `faultline` command: load, serve, match, lint, export, import."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from app.settings import default_db, default_kb


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, help="SQLite file (default: $FAULTLINE_DB or ./faultline.db)")


def cmd_load(args) -> int:
    from app.kbfiles import KBError
    from app.store.load import load_into_db

    try:
        n_entries, n_guides = load_into_db(args.kb, args.db or default_db())
    except KBError as exc:
        print(f"faultline load: the knowledge base was NOT loaded ({len(exc.problems)} problems):", file=sys.stderr)
        for p in exc.problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"loaded {n_entries} entries and {n_guides} guides into {args.db or default_db()}")
    return 0


def cmd_lint(args) -> int:
    from app.lint import lint

    rep = lint(args.kb, strict=not args.draft)
    keep = (lambda m: args.only in m) if args.only else (lambda m: True)
    for w in filter(keep, rep.warnings):
        print(f"warning: {w}")
    for e in filter(keep, rep.errors):
        print(f"error: {e}")
    print(
        f"{rep.entries} entries, {rep.checked_examples} example logs, {rep.checked_negatives} negative logs: "
        + ("OK" if rep.ok else f"{len(rep.errors)} errors")
    )
    return 0 if rep.ok else 1


def _read_input(path: str) -> str:
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return data.decode("utf-8", errors="replace")


def cmd_match(args) -> int:
    from app.matching.rank import match_text
    from app.store.load import index_from_db

    text = _read_input(args.file)
    if not text.strip():
        print("faultline match: the input is empty", file=sys.stderr)
        return 2
    env = _read_input(args.env) if args.env else None
    index = index_from_db(args.db or default_db(), args.kb)
    res = match_text(index, text, environment=env, limit=args.limit, lang=args.lang)
    if args.json:
        print(json.dumps(res, ensure_ascii=False, indent=2))
        return 0 if res["matches"] else 3
    from app.render.text import match_report

    print(match_report(res, args.lang))
    return 0 if res["matches"] else 3


def cmd_serve(args) -> int:
    import uvicorn

    os.environ["FAULTLINE_DB"] = str(Path(args.db or default_db()).resolve())
    os.environ.setdefault("FAULTLINE_KB", str(Path(args.kb).resolve()))
    uvicorn.run("app.main:app", host=args.host, port=args.port, log_level="info")
    return 0


def cmd_export(args) -> int:
    from app.render.export import export_dir
    from app.store.load import kb_from_db

    entries, guides = kb_from_db(args.db or default_db(), args.kb)
    n = export_dir(entries, guides, args.format, args.lang, Path(args.out))
    print(f"wrote {n} files to {args.out}")
    return 0


def cmd_import(args) -> int:
    from app.peers.deadends import import_deadends

    n, skipped = import_deadends(Path(args.file), args.db or "deadends.db")
    print(f"imported {n} deadends.dev entries into {args.db or 'deadends.db'} ({skipped} skipped)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="faultline", description="A knowledge base of ML-training errors.")
    ap.add_argument("--kb", default=str(default_kb()), help="knowledge-base directory (default: ./kb)")
    sub = ap.add_subparsers(dest="verb", required=True)

    p = sub.add_parser("load", help="validate kb/ and build the SQLite file")
    _add_db(p)
    p.set_defaults(fn=cmd_load)

    p = sub.add_parser("serve", help="run the HTTP service")
    _add_db(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(fn=cmd_serve)

    p = sub.add_parser("match", help="match a traceback or log (FILE or - for stdin)")
    _add_db(p)
    p.add_argument("file", nargs="?", default="-")
    p.add_argument("--env", help="file with pip freeze / collect_env output")
    p.add_argument("--json", action="store_true", help="print the API's JSON")
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.add_argument("--limit", type=int, default=5)
    p.set_defaults(fn=cmd_match)

    p = sub.add_parser("lint", help="check the knowledge base")
    p.add_argument("--draft", action="store_true", help="skip broken files; report missing content and links as warnings")
    p.add_argument("--only", default=None, help="print only the problems whose text contains this (e.g. an id)")
    p.set_defaults(fn=cmd_lint)

    p = sub.add_parser("export", help="export every entry and guide")
    _add_db(p)
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_export)

    p = sub.add_parser("import", help="import a peer corpus into a separate database")
    p.add_argument("kind", choices=["deadends"])
    p.add_argument("file")
    _add_db(p)
    p.set_defaults(fn=cmd_import)

    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
