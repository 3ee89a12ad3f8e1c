"""`faultline lint`: the knowledge base checks itself (see app/lint.py)."""
from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("lint", help="check the knowledge base")
    p.add_argument("--draft", action="store_true", help="skip broken files; report missing content and links as warnings")
    p.add_argument("--only", default=None, help="print only the problems whose text contains this (e.g. an id)")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.lint import lint

    rep = lint(args.kb, strict=not args.draft)
    keep = (lambda m: args.only in m) if args.only else (lambda m: True)
    for w in filter(keep, rep.warnings):
        print(f"warning: {w}")
    for e in filter(keep, rep.errors):
        print(f"error: {e}")
    print(
        f"{rep.entries} entries, {rep.checked_examples} example logs, {rep.checked_negatives} negative logs: "
        + ("OK" if rep.ok else f"{len(rep.errors)} errors")
    )
    return 0 if rep.ok else 1
