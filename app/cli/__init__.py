"""The `faultline` command.  One module per verb: ``app/cli/<verb>.py`` defines ``register(sub)``,
which adds the verb's sub-parser and sets ``fn`` to the function that runs it.

To add a verb, write its module and add its name to ``VERBS`` (and an example to ``EXAMPLES``
unless the module sets its own ``epilog``).

Usage errors never end in a traceback: a bad flag prints the verb's own usage, and a file that
cannot be read or written or undecodable text print one line on stderr and exit with code 2 (see
``main``).  A closed output pipe (``| head``) ends the command quietly with 141, as a shell reports a
command stopped by SIGPIPE.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from faultline.settings import db_from_environment, default_kb, user_db

# the order is the order of `faultline --help`
VERBS = ["load", "serve", "match", "lint", "new", "export", "import_", "run", "mcp", "token", "inbox", "verify"]

# shown at the end of each verb's --help, unless its module already sets an epilog
EXAMPLES = {
    "load": "example: faultline load --db faultline.db",
    "serve": "example: faultline serve --db faultline.db --port 8000",
    "match": "examples:\n  faultline match train.log --db faultline.db\n"
             "  torchrun ... 2>&1 | tee train.log | faultline match -\n"
             "  faultline match train.log --server http://127.0.0.1:8000 --format md",
    "lint": "example: faultline lint --only pytorch/cuda-out-of-memory",
    "new": "example: faultline new pytorch/cuda-out-of-memory",
    "export": "example: faultline export --format md --lang zh --out faultline-zh",
    "import": "example: faultline import deadends canons.jsonl --db deadends.db",
    "token": "example: faultline token create --scope report --name ci",
    "inbox": "example: faultline inbox --limit 20",
    "verify": "example: faultline verify --only peft",
}

USAGE_ERROR = 2
CLOSED_PIPE = 128 + 13  # what a shell reports for a command that SIGPIPE stopped


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples' line breaks and shows each option's default when it has one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if ("%(default)" not in text and "default" not in text and default not in (None, False, [])
                and default is not argparse.SUPPRESS and action.option_strings):
            text = (text + " " if text else "") + "(default: %(default)s)"
        return text


def version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version as dist_version

        return dist_version("faultline")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _sub_parsers(parser: argparse.ArgumentParser):
    for action in parser._actions:  # noqa: SLF001 - argparse offers no public walk over sub-parsers
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            yield from action.choices.items()


def _finish(parser: argparse.ArgumentParser, name: str | None) -> None:
    """Every parser gets the shared formatter, its example and a reference to itself (for its usage)."""
    parser.formatter_class = HelpFormatter
    if name in EXAMPLES and not parser.epilog:
        parser.epilog = EXAMPLES[name]
    parser.set_defaults(_parser=parser)
    for action in parser._actions:  # noqa: SLF001 - argparse prints no help line for an option without help
        if not action.help and action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
            action.help = "(default: %(default)s)"
    for sub_name, sub in _sub_parsers(parser):
        _finish(sub, sub_name if parser.prog == "faultline" else None)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="faultline", description="A knowledge base of ML-training errors.",
                                 epilog="example: faultline match train.log   (after `faultline load`)\n"
                                        "Each verb has its own --help.")
    ap.add_argument("--kb", default=str(default_kb()), metavar="DIR",
                    help="knowledge-base folder (default: $FAULTLINE_KB, else ./kb when it holds entries/, else the "
                         "repository's or the installed package's kb)")
    ap.add_argument("--version", action="version", version=f"faultline {version()}")
    sub = ap.add_subparsers(dest="verb", required=True, metavar="VERB", title="verbs")
    for name in VERBS:
        importlib.import_module(f"faultline.cli.{name}").register(sub)
    _finish(ap, None)
    return ap


def _one_line(args: argparse.Namespace, exc: BaseException) -> str:
    who = f"faultline {args.verb}" if getattr(args, "verb", None) else "faultline"
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc)
        if exc.filename is not None:
            return f"{who}: {exc.filename}: {reason}"
        return f"{who}: {reason}"
    return f"{who}: {type(exc).__name__}: {exc}".splitlines()[0]


def _closed_pipe() -> int:
    # the reader (e.g. `| head -n 1`) went away after reading what it wanted: stop writing, say nothing,
    # and keep Python from failing again when it flushes stdout at exit
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return CLOSED_PIPE


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # an unknown flag: the usage of the verb it was given to
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    db = getattr(args, "db", None)
    if db and "://" not in str(db) and os.path.isdir(db):
        print(f"faultline {args.verb}: --db {db} is a folder, not a database file", file=sys.stderr)
        return USAGE_ERROR
    if hasattr(args, "db") and not db and args.verb != "import" and not db_from_environment():
        user_db().parent.mkdir(parents=True, exist_ok=True)  # the per-user data folder holds the default database
    try:
        code = args.fn(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        return _closed_pipe()
    except (OSError, UnicodeError) as exc:
        print(_one_line(args, exc), file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
    except Exception as exc:
        kb_error = getattr(sys.modules.get("faultline.kbfiles"), "KBError", ())
        if kb_error and isinstance(exc, kb_error):  # building the default database from the KB failed
            print(f"faultline {args.verb}: the knowledge base in {args.kb} could not be loaded: "
                  f"{exc.problems[0] if exc.problems else exc}".splitlines()[0], file=sys.stderr)
            return 1
        if not _database_error(exc):
            raise
        orig = getattr(exc, "orig", None) or exc
        print(f"faultline {args.verb}: cannot use the database: {str(orig).splitlines()[0]}", file=sys.stderr)
        return USAGE_ERROR


def _database_error(exc: Exception) -> bool:
    """A database that cannot be opened or read (a folder, a missing directory, not a database)."""
    import sqlite3

    if isinstance(exc, sqlite3.Error):
        return True
    sa_exc = sys.modules.get("sqlalchemy.exc")
    return bool(sa_exc) and isinstance(exc, sa_exc.OperationalError)
