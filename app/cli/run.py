"""`faultline run -- COMMAND ...`: run a command (e.g. torchrun); if it fails, say which known error
ended it.  Output passes through unchanged; the exit code is the command's own."""
from __future__ import annotations

import signal
import sys

from app.cli.backend import add_server
from app.cli.common import add_db


def register(sub) -> None:
    p = sub.add_parser(
        "run", help="run a command; when it fails, diagnose its output",
        description="Run COMMAND, passing its output through. When it fails (non-zero exit or a signal), "
                    "match the end of its output and print the first failing rank, the known error, its two "
                    "best workarounds, the dead end to avoid and a link to stderr. Exits with COMMAND's code.",
        epilog="example: faultline run -- torchrun --nproc_per_node 8 train.py")
    add_db(p)
    add_server(p)
    p.add_argument("--lang", choices=["en", "zh"], default="en")
    p.add_argument("command", nargs="+", metavar="COMMAND", help="the command and its arguments (after --)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from app.cli.backend import BackendError, entry_link, match_log
    from app.render.diagnosis import diagnosis
    from app.runwrap import CommandNotFound, run_command

    argv = list(args.command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("faultline run: no command given; usage: faultline run -- COMMAND [ARGS ...]", file=sys.stderr)
        return 2
    try:
        result = run_command(argv)
    except CommandNotFound as exc:
        print(f"faultline run: {exc}", file=sys.stderr)
        return 127
    if result.returncode == 0:
        return 0
    text = result.tail
    if not text.strip():
        return result.returncode
    try:
        res = match_log(text, server=args.server, db=args.db, kb=args.kb, limit=3, lang=args.lang)
    except BackendError as exc:
        print(f"faultline: the command failed; no diagnosis: {exc}", file=sys.stderr)
        return result.returncode
    except Exception as exc:  # noqa: BLE001 - whatever goes wrong here, the exit code stays the command's
        print(f"faultline: the command failed; no diagnosis ({type(exc).__name__}: {exc})", file=sys.stderr)
        return result.returncode
    stopped = result.interrupted or result.returncode == 128 + signal.SIGINT  # Ctrl-C, at faultline or the terminal
    if stopped and not res.get("matches"):
        return result.returncode  # stopped by the user with nothing known in its output: say nothing
    top = (res.get("matches") or [{}])[0]
    link = entry_link(top["url"], args.server) if top.get("url") else None
    sys.stderr.write(diagnosis(res, returncode=result.returncode, signal=result.signal,
                               lines=text.count("\n") + 1, lang=args.lang, link=link))
    sys.stderr.flush()
    return result.returncode
