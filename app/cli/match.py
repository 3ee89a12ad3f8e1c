"""`faultline match`: match a traceback or log against the local database."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from faultline.cli import USAGE_ERROR
from faultline.cli.backend import add_server
from faultline.cli.common import add_db, local_db, missing_db, positive_int, read_input
from faultline.logsets.inputs import LogFile
from faultline.settings import db_from_environment


def register(sub) -> None:
    p = sub.add_parser("match", help="match a traceback or log (FILE or - for stdin), or several logs of one job")
    add_db(p)
    p.add_argument("file", nargs="*", default=["-"],
                   help="the log or traceback; - (the default) reads standard input; several files, folders "
                        "(a torchrun --log-dir, per-rank or per-host logs, error files) or .zip / .tar.gz archives "
                        "of them are matched together: one answer that names the file and line of each finding")
    p.add_argument("--env", help="file with pip freeze / collect_env output")
    p.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # an older spelling of --format json
    p.add_argument("--format", choices=["text", "json", "md"], default=None,
                   help="text for the terminal, json (the API's answer) or md (for an issue comment) (default: text)")
    add_server(p)
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the answer (default: en)")
    p.add_argument("--limit", type=positive_int, default=5, help="at most this many matches (default: 5)")
    p.set_defaults(fn=run)


def is_logset(paths: list[str]) -> bool:
    """More than one input, or one that is a folder or an archive: a set of logs (app/logsets)."""
    from faultline.logsets.inputs import looks_like_archive

    if len(paths) != 1:
        return True
    p = Path(paths[0])
    return paths[0] != "-" and (p.is_dir() or looks_like_archive(p.name))


def match_logset(paths: list[str], *, server: str | None, db: str | None, kb: str, environment=None,
                 limit: int = 5, lang: str = "en", extra: list[tuple[str, bytes]] = ()) -> dict:
    """The /match result for several files (read here under the same limits as the service), from the
    service (one multipart upload) or the local database.  ``extra``: more (name, bytes) inputs."""
    from faultline.cli.backend import BackendError
    from faultline.logsets import match_files, read_paths
    from faultline.logsets.inputs import Collected

    collected = read_paths(paths) if paths else Collected()  # LogSetError: the inputs are refused (a usage error)
    collected.files += [LogFile(name, data) for name, data in extra if data.strip()]
    if server:
        from faultline.client import Client, FaultlineError, _raise_for

        files = [("files", (f.name, f.data, "text/plain")) for f in collected.files]
        data = {"limit": str(limit), "lang": lang, **({"environment": environment} if environment else {})}
        try:
            with Client(server, timeout=60) as c:
                r = c._http.post("/match", files=files, data=data, headers=c._headers())
                _raise_for(r)
                res = r.json()
        except FaultlineError as exc:
            raise BackendError(f"{server} answered {exc.status} {exc.code}: {exc.message}" if exc.status
                               else exc.message) from None
        except Exception as exc:  # noqa: BLE001 - no answer at all (refused, timed out)
            raise BackendError(f"{server}: {exc}") from None
        res["skipped_files"] = collected.skipped + [s for s in res.get("skipped_files", []) if s not in collected.skipped]
        return res
    from faultline.render.evidence import with_local_reports
    from faultline.store.load import index_from_db

    db = local_db(db, kb)
    try:
        index = index_from_db(db, kb)
    except Exception as exc:  # noqa: BLE001 - a broken or unreadable database is reported, not raised
        raise BackendError(f"cannot read the knowledge base from {db}: {exc}") from None
    res = match_files(index, collected, environment=environment, limit=limit, lang=lang)
    return with_local_reports(res, db, index.entry, lang)


def _missing(args) -> str | None:
    """Why a database named by --db, $DATABASE_URL or $FAULTLINE_DB cannot be read (never built here);
    None for the per-user default, which is built when needed (common.local_db)."""
    named = args.db or db_from_environment()
    return missing_db(named) if named else None


def run(args) -> int:
    from faultline.cli.backend import BackendError, match_log

    if is_logset(args.file):
        return _run_logset(args)
    if args.file[0] == "-" and sys.stdin.isatty():  # nothing piped in: say what it waits for
        print("faultline match: reading the log from standard input; paste it, then press Ctrl-D "
              "(or give a FILE)", file=sys.stderr, flush=True)
    text = read_input(args.file[0])
    if not text.strip():
        print("faultline match: the input is empty", file=sys.stderr)
        return 2
    env = read_input(args.env) if args.env else None
    if not args.server and (why := _missing(args)):
        print(f"faultline match: {why}", file=sys.stderr)
        return 2
    try:
        res = match_log(text, server=args.server, db=args.db, kb=args.kb, environment=env,
                        limit=args.limit, lang=args.lang)
    except BackendError as exc:  # a server that cannot be reached or refused the log, an unreadable database
        print(f"faultline match: {exc}", file=sys.stderr)
        return USAGE_ERROR
    return _print(res, args)


def _run_logset(args) -> int:
    from faultline.cli.backend import BackendError

    if "-" in args.file:
        print("faultline match: - (standard input) cannot be one of several inputs", file=sys.stderr)
        return 2
    if not args.server and (why := _missing(args)):
        print(f"faultline match: {why}", file=sys.stderr)
        return 2
    from faultline.logsets import LogSetError

    env = read_input(args.env) if args.env else None
    try:
        res = match_logset(args.file, server=args.server, db=args.db, kb=args.kb, environment=env,
                           limit=args.limit, lang=args.lang)
    except LogSetError as exc:  # a missing or unreadable file, a limit, an unsafe archive
        print(f"faultline match: {exc.message}", file=sys.stderr)
        return 2
    except BackendError as exc:  # a server that cannot be reached or refused the log, an unreadable database
        print(f"faultline match: {exc}", file=sys.stderr)
        return USAGE_ERROR
    return _print(res, args)


def _print(res: dict, args) -> int:
    fmt = args.format or ("json" if args.json else "text")
    if fmt == "md":
        from faultline.render.match_markdown import match_markdown

        print(match_markdown(res, args.lang, server=args.server))
        return 0 if res["matches"] else 3
    if fmt == "json":
        print(json.dumps(res, ensure_ascii=False, indent=2))
        return 0 if res["matches"] else 3
    from faultline.render.text import match_report

    print(match_report(res, args.lang))
    if "files" in res:
        from faultline.logsets.report import files_report

        print(files_report(res, args.lang))
    return 0 if res["matches"] else 3
