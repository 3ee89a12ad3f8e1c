"""`faultline serve`: run the HTTP service (see app/server.py for its limits)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from faultline.cli.common import add_db
from faultline.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the HTTP service",
                       epilog="example: faultline serve --db faultline.db --port 8000 --workers 2")
    add_db(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (default: the number of cores)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.server import serve
    from faultline.service import StartupError, ensure_kb
    from faultline.store.db import resolve_target

    target = resolve_target(args.db or default_db())
    kb = str(Path(args.kb).resolve())
    try:
        ensure_kb(target, kb)  # once, before the workers start
    except StartupError as exc:
        print(f"faultline serve: {exc}", file=sys.stderr)
        return 2
    if "://" in target:
        os.environ["DATABASE_URL"] = target
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ["FAULTLINE_DB"] = target
    os.environ.setdefault("FAULTLINE_KB", kb)
    if args.workers is not None and args.workers < 1:
        print("faultline serve: --workers must be at least 1", file=sys.stderr)
        return 2
    serve(args.host, args.port, args.workers)
    return 0
