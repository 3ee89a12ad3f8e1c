"""`faultline inbox`: the unknown errors people pasted (FAULTLINE_INBOX=1), most frequent first."""
from __future__ import annotations

import json

from faultline.cli.common import add_db, positive_int
from faultline.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("inbox", help="list the groups of unknown errors, most frequent first")
    add_db(p)
    p.add_argument("--limit", type=positive_int, default=50, metavar="N",
                   help="show at most this many groups, the most frequent first (at most 1000)")
    p.add_argument("--json", action="store_true", help="print JSON, as GET /inbox does")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.inbox import group_view
    from faultline.store.written import WrittenStore

    st = WrittenStore.open(args.db or default_db())
    try:
        groups = [group_view(r) for r in st.inbox(max(1, min(args.limit, 1000)))]
    finally:
        st.close()
    if args.json:
        print(json.dumps({"groups": groups}, ensure_ascii=False, indent=2))
        return 0
    if not groups:
        print("the inbox is empty (the service records unknown errors when FAULTLINE_INBOX=1)")
        return 0
    print(f"{'count':>6}  {'fingerprint':<16}  {'last seen':<20}  sample")
    for g in groups:
        print(f"{g['count']:>6}  {g['fingerprint']:<16}  {g['last_seen']:<20}  {g['sample'][:120]}")
    return 0
