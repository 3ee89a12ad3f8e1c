"""`faultline run -- COMMAND ...`: run a command (e.g. torchrun); if it fails, say which known error
ended it.  Output passes through unchanged; the exit code is the command's own."""
from __future__ import annotations

import signal
import sys
import time

from faultline.cli.backend import add_server
from faultline.cli.common import add_db, non_negative_float, non_negative_int


def register(sub) -> None:
    p = sub.add_parser(
        "run", help="run a command; when it fails, diagnose its output",
        description="Run COMMAND, passing its output through. When it fails (non-zero exit or a signal), "
                    "match the end of its output and print the first failing rank, the known error, its two "
                    "best workarounds, the dead end to avoid, the verdict (who must act, whether to retry) and "
                    "a link to the entry, all on stderr. COMMAND is looked up on your PATH and runs with your "
                    "environment: activate the training environment first. With --retry-transient N, rerun it when the verdict says the failure is "
                    "transient. Exits with COMMAND's code (its last run's).",
        epilog="example: faultline run -- torchrun --nproc_per_node 8 train.py")
    add_db(p)
    add_server(p)
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="language of the diagnosis")
    p.add_argument("--retry-transient", type=non_negative_int, default=0, metavar="N",
                   help="rerun COMMAND up to N times, only when the verdict on its failure is transient "
                        "(retry as is); say why each time (default: 0, never rerun)")
    p.add_argument("--retry-delay", type=non_negative_float, default=10.0, metavar="SECONDS",
                   help="wait this long before each rerun (default: 10)")
    p.add_argument("--logs", action="append", default=[], metavar="PATH",
                   help="when the command fails, match these files, folders or archives (e.g. torchrun's --log-dir "
                        "folder) together with its output; repeatable")
    p.add_argument("command", nargs="+", metavar="COMMAND", help="the command and its arguments (after --)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.render.diagnosis import retry_note
    from faultline.runwrap import CommandNotFound

    argv = list(args.command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("faultline run: no command given; usage: faultline run -- COMMAND [ARGS ...]", file=sys.stderr)
        return 2
    attempts = 1 + max(0, args.retry_transient)
    for attempt in range(1, attempts + 1):
        try:
            returncode, verdict, stopped = _attempt(argv, args)
        except CommandNotFound as exc:
            print(f"faultline run: {exc}", file=sys.stderr)
            return 127
        if returncode == 0:
            if attempt > 1:
                _say(retry_note("worked", args.lang, attempt=attempt, attempts=attempts))
            return 0
        if attempts == 1 or stopped:  # no rerun asked for; or the user stopped it
            return returncode
        kind = (verdict or {}).get("retry", {}).get("kind")
        if kind != "transient":
            _say(retry_note("not_transient", args.lang, label=(verdict or {}).get("retry", {}).get("label")))
            return returncode
        if attempt == attempts:
            _say(retry_note("spent", args.lang, n=attempts - 1))
            return returncode
        _say(retry_note("retrying", args.lang, attempt=attempt + 1, attempts=attempts,
                        reason=verdict["retry"].get("reason") or verdict["retry"].get("label")))
        time.sleep(args.retry_delay)
    return returncode


def _say(line: str) -> None:
    sys.stderr.write(f"faultline: {line}\n")
    sys.stderr.flush()


def _attempt(argv: list[str], args) -> tuple[int, dict | None, bool]:
    """Run the command once; on failure print the diagnosis.  Returns its exit code, the verdict on
    the failure (None when there is none) and whether the user stopped it."""
    from faultline.cli.backend import BackendError, entry_link, match_log
    from faultline.render.diagnosis import diagnosis
    from faultline.runwrap import run_command

    result = run_command(argv)
    stopped = result.interrupted or result.returncode == 128 + signal.SIGINT  # Ctrl-C, at faultline or the terminal
    # Ctrl-C: SIGINT passed on by faultline, or the command's own death by SIGINT from the terminal
    ctrl_c = result.stopped_by == signal.SIGINT or (result.stopped_by is None and stopped)
    if stopped and not ctrl_c:  # stopped by SIGTERM / SIGHUP / SIGQUIT sent to faultline: no diagnosis
        return result.returncode, None, True
    if result.output_closed:  # `faultline run -- cmd | head`: the reader left, as it meant to; no diagnosis
        return result.returncode, None, True
    if result.returncode == 0:
        return 0, None, stopped
    text = result.tail
    if not text.strip() and not args.logs:  # nothing to match: one line (two for a signal) says what is known
        from faultline.render.diagnosis import silent_failure, stopped_by_user

        _write(stopped_by_user({}, args.lang) if stopped else
               silent_failure(returncode=result.returncode, signal=result.signal, lang=args.lang))
        return result.returncode, None, stopped
    if result.signal and not stopped:
        # what faultline itself saw, written as a process wrapper reports it, so that the matcher reads the
        # signal as it reads any launcher's report (app/matching/exits.py) when the output says nothing more
        text = text.rstrip("\n") + f"\nfaultline run: the command terminated with exit code {result.returncode}\n"
    try:
        if args.logs:  # the output and the job's own log files, as one set (app/logsets)
            from faultline.cli.match import match_logset

            res = match_logset(args.logs, server=args.server, db=args.db, kb=args.kb, limit=3, lang=args.lang,
                               extra=[("console", text.encode("utf-8"))])
        else:
            res = match_log(text, server=args.server, db=args.db, kb=args.kb, limit=3, lang=args.lang)
    except BackendError as exc:
        print(f"faultline: the command failed; no diagnosis: {exc}", file=sys.stderr)
        return result.returncode, None, stopped
    except Exception as exc:  # noqa: BLE001 - whatever goes wrong here, the exit code stays the command's
        print(f"faultline: the command failed; no diagnosis ({type(exc).__name__}: {exc})", file=sys.stderr)
        return result.returncode, None, stopped
    interrupted = any(f.get("kind") == "interrupted" for f in res.get("findings") or [])
    if interrupted or (stopped and not (res.get("root_cause") or {}).get("is_cause")):
        # the first failure is the user's Ctrl-C: not an error; say where each process was
        from faultline.render.diagnosis import stopped_by_user

        _write(stopped_by_user(res, args.lang))
        return result.returncode, None, True
    top = (res.get("matches") or [{}])[0]
    link = entry_link(top["url"], args.server) if top.get("url") else None
    _write(diagnosis(res, returncode=result.returncode, signal=result.signal,
                     lines=text.count("\n") + 1, lang=args.lang, link=link))
    return result.returncode, res.get("verdict"), stopped


def _write(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
