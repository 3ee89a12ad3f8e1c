"""`faultline match`: match a traceback or log against the local database."""
from __future__ import annotations

import json
import sys

from app.cli.backend import add_server
from app.cli.common import add_db, missing_db, positive_int, read_input
from app.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("match", help="match a traceback or log (FILE or - for stdin)")
    add_db(p)
    p.add_argument("file", nargs="?", default="-", help="the log or traceback; - (the default) reads standard input")
    p.add_argument("--env", help="file with pip freeze / collect_env output")
    p.add_argument("--json", action="store_true", help="print the API's JSON (the same as --format json)")
    p.add_argument("--format", choices=["text", "json", "md"], default=None, help="output format (default: text)")
    add_server(p)
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the answer (default: en)")
    p.add_argument("--limit", type=positive_int, default=5, help="at most this many matches (default: 5)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from app.cli.backend import BackendError, match_log

    text = read_input(args.file)
    if not text.strip():
        print("faultline match: the input is empty", file=sys.stderr)
        return 2
    env = read_input(args.env) if args.env else None
    if not args.server and (why := missing_db(args.db or default_db())):  # never build one silently here
        print(f"faultline match: {why}", file=sys.stderr)
        return 2
    try:
        res = match_log(text, server=args.server, db=args.db or default_db(), kb=args.kb, environment=env,
                        limit=args.limit, lang=args.lang)
    except BackendError as exc:
        print(f"faultline match: {exc}", file=sys.stderr)
        return 1
    fmt = args.format or ("json" if args.json else "text")
    if fmt == "md":
        from app.render.match_markdown import match_markdown

        print(match_markdown(res, args.lang, server=args.server))
        return 0 if res["matches"] else 3
    if fmt == "json":
        print(json.dumps(res, ensure_ascii=False, indent=2))
        return 0 if res["matches"] else 3
    from app.render.text import match_report

    print(match_report(res, args.lang))
    return 0 if res["matches"] else 3
