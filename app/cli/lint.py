"""`faultline lint`: the knowledge base checks itself (see app/lint.py)."""
from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("lint", help="check the knowledge base",
                       description="Check every entry: schema, RE2 compilation and specificity of each signature, "
                                   "every example log at rank 1, the negative logs unmatched, both languages present. "
                                   "With --only, check one entry (or one domain) against the whole KB.")
    p.add_argument("--draft", action="store_true", help="skip broken files; report missing content and links as warnings")
    p.add_argument("--only", default=None, metavar="ID",
                   help="lint only this entry (DOMAIN/SLUG) or every entry of this domain; the negative logs are "
                        "not checked")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.lint import lint

    only = args.only.strip().strip("/") if args.only else None
    rep = lint(args.kb, strict=not args.draft, only=only)
    if only and not rep.entries and not rep.errors:
        print(f"faultline lint: no entry or domain {only!r} in {args.kb}", file=sys.stderr)
        return 2
    for w in rep.warnings:
        print(f"warning: {w}")
    for e in rep.errors:
        print(f"error: {e}")
    entries = f"{rep.entries} {'entry' if rep.entries == 1 else 'entries'}"
    if only:
        head = f"{entries} ({only}), {rep.checked_examples} example logs"
    else:
        head = f"{entries}, {rep.checked_examples} example logs, {rep.checked_negatives} negative logs"
    print(f"{head}: " + ("OK" if rep.ok else f"{len(rep.errors)} errors"))
    return 0 if rep.ok else 1
