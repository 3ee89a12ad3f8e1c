"""`faultline serve`: run the HTTP service."""
from __future__ import annotations

import os
from pathlib import Path

from app.cli.common import add_db
from app.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the HTTP service")
    add_db(p)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(fn=run)


def run(args) -> int:
    import uvicorn

    os.environ["FAULTLINE_DB"] = str(Path(args.db or default_db()).resolve())
    os.environ.setdefault("FAULTLINE_KB", str(Path(args.kb).resolve()))
    uvicorn.run("app.main:app", host=args.host, port=args.port, log_level="info")
    return 0
