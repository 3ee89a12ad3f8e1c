"""`faultline token`: API tokens for outcome reports (scope report) and curators (scope curate)."""
from __future__ import annotations

import sys

from faultline.cli.common import add_db
from faultline.settings import default_db


def register(sub) -> None:
    p = sub.add_parser("token", help="create, list and revoke API tokens")
    verbs = p.add_subparsers(dest="token_verb", required=True)
    c = verbs.add_parser("create", help="create a token and print it once (only its hash is stored)")
    add_db(c)
    c.add_argument("--scope", required=True, choices=["report", "curate"],
                   help="report: POST /errors/{id}/outcomes; curate: GET /inbox")
    c.add_argument("--name", help="a name to tell it apart (default: <scope>-token)")
    c.set_defaults(fn=create)
    ls = verbs.add_parser("list", help="list tokens (never the tokens themselves)")
    add_db(ls)
    ls.set_defaults(fn=list_)
    r = verbs.add_parser("revoke", help="revoke a token by id, name or hint")
    add_db(r)
    r.add_argument("token", help="the id, name or hint shown by `faultline token list`")
    r.set_defaults(fn=revoke)


def _store(args):
    from faultline.store.written import WrittenStore

    return WrittenStore.open(args.db or default_db())


def create(args) -> int:
    name = (args.name or "").strip() or None
    if name is not None and (len(name) > 100 or not name.isprintable()):
        print("faultline token: the name must be printable and at most 100 characters", file=sys.stderr)
        return 2
    st = _store(args)
    try:
        row, token = st.create_token(args.scope, name)
    finally:
        st.close()
    print(f"created token {row.id} '{row.name}' with scope {row.scope}.")
    print("Keep it now: it is shown only this once; the database keeps only its hash.")
    print(token)
    return 0


def list_(args) -> int:
    from faultline.store.written import iso

    st = _store(args)
    try:
        rows = st.tokens()
    finally:
        st.close()
    if not rows:
        print("no tokens; create one with `faultline token create --scope report`")
        return 0
    print(f"{'id':>4}  {'scope':<7} {'name':<24} {'hint':<11} {'created':<20} status")
    for r in rows:
        status = f"revoked {iso(r.revoked)}" if r.revoked else "active"
        print(f"{r.id:>4}  {r.scope:<7} {r.name[:24]:<24} {r.hint:<11} {iso(r.created):<20} {status}")
    return 0


def revoke(args) -> int:
    st = _store(args)
    try:
        rows = st.revoke(args.token)
    finally:
        st.close()
    if not rows:
        print(f"faultline token: no active token with id, name or hint {args.token!r}", file=sys.stderr)
        return 1
    for r in rows:
        print(f"revoked token {r.id} '{r.name}' ({r.scope})")
    return 0
