"""`faultline serve`: run the HTTP service (see app/server.py for its limits)."""
from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

from faultline.cli.common import add_db, local_db


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the HTTP service",
                       epilog="example: faultline serve --db faultline.db --port 8000 --workers 2")
    add_db(p)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on; 0.0.0.0 for every interface (put a reverse proxy in front)")
    p.add_argument("--port", type=int, default=8000, help="TCP port to listen on")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (default: the number of cores)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.server import serve
    from faultline.service import StartupError, ensure_kb
    from faultline.store.db import resolve_target

    if args.workers is not None and args.workers < 1:
        print("faultline serve: --workers must be at least 1", file=sys.stderr)
        return 2
    if why := _cannot_listen(args.host, args.port):
        print(f"faultline serve: cannot listen on {args.host}:{args.port}: {why}", file=sys.stderr)
        return 2
    target = resolve_target(local_db(args.db, args.kb))
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
    try:
        serve(args.host, args.port, args.workers)
    except SystemExit as exc:  # uvicorn exits 3 when it cannot start; 3 means "no match" here
        if exc.code in (None, 0):
            return 0
        print(f"faultline serve: the service stopped at start-up (uvicorn exit code {exc.code}; see above)",
              file=sys.stderr)
        return 2
    return 0


def _cannot_listen(host: str, port: int) -> str | None:
    """Why the service could not listen on host:port (e.g. the port is in use), tried before anything
    starts, the way uvicorn binds (SO_REUSEADDR); None when it can."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return str(exc.strerror or exc)
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            hint = "; another service (a second `faultline serve`?) uses it: pick another --port" \
                if exc.errno == errno.EADDRINUSE else ""
            return f"{exc.strerror or exc}{hint}"
    return None
