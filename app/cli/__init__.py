"""The `faultline` command.  One module per verb: ``app/cli/<verb>.py`` defines ``register(sub)``,
which adds the verb's sub-parser and sets ``fn`` to the function that runs it.

To add a verb, write its module and add its name to ``VERBS``.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from app.settings import default_kb

# the order is the order of `faultline --help`
VERBS = ["load", "serve", "match", "lint", "new", "export", "import_", "run", "mcp", "token", "inbox"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="faultline", description="A knowledge base of ML-training errors.")
    ap.add_argument("--kb", default=str(default_kb()), help="knowledge-base directory (default: ./kb)")
    sub = ap.add_subparsers(dest="verb", required=True)
    for name in VERBS:
        importlib.import_module(f"app.cli.{name}").register(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.fn(args)
