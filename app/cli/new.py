"""`faultline new DOMAIN/SLUG`: start an entry from a scaffold in both languages (see app/scaffold.py)."""
from __future__ import annotations

import sys
from pathlib import Path

from faultline.cli.common import add_db
from faultline.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("new", help="write the scaffold of a new entry (kb/entries/DOMAIN/SLUG.yaml)")
    p.add_argument("id", help="the new entry's id, DOMAIN/SLUG (lowercase), e.g. pytorch/cuda-out-of-memory")
    p.add_argument("--from-inbox", metavar="FINGERPRINT", dest="from_inbox",
                   help="start from an inbox group of unknown errors (see `faultline inbox`): its masked "
                        "sample goes into the error text and first example placeholders")
    add_db(p)
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.entry import ID_RE
    from faultline.scaffold import scaffold

    eid = args.id.strip()
    if not ID_RE.match(eid):
        print(f"faultline new: {eid!r} is not an id like 'domain/slug' (lowercase letters, digits, '-', '_', '.')",
              file=sys.stderr)
        return 2
    root = Path(args.kb)
    if not (root / "entries").is_dir():
        print(f"faultline new: {root} is not a knowledge base (no entries/ folder)", file=sys.stderr)
        return 2
    dest = root / "entries" / f"{eid}.yaml"
    existing = [p for p in (dest, dest.with_suffix(".yml"), dest.with_suffix(".json")) if p.exists()]
    if existing:
        print(f"faultline new: {existing[0]} already exists; not overwriting it", file=sys.stderr)
        return 2
    inbox = None
    if args.from_inbox:
        from faultline.inbox import from_inbox

        fp = args.from_inbox.strip()
        try:
            inbox = from_inbox(args.db or default_db(), fp)
        except Exception as exc:  # an unreadable or missing database: say which, write nothing
            print(f"faultline new: cannot read the inbox in {args.db or default_db()}: {exc}", file=sys.stderr)
            return 2
        if inbox is None:
            print(f"faultline new: the inbox has no group {fp!r} (`faultline inbox` lists them)", file=sys.stderr)
            return 2
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest, "x", encoding="utf-8") as fh:  # "x": never replace a file created meanwhile
        fh.write(scaffold(eid, inbox))
    ex = root / "examples" / eid
    ex.mkdir(parents=True, exist_ok=True)
    print(f"wrote {dest}" + (f" from the inbox group {inbox['inbox']['fingerprint']} "
                             f"(seen {inbox['seen']} time(s))" if inbox else ""))
    print(f"example logs go in {ex}/ (at least 3; NAME.real.log or NAME.composed.log)")
    print("fill in every TODO(...) value, then run `faultline lint`")
    return 0
