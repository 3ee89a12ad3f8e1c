"""Where the CLI matches a log: the local database, or a Faultline service (``--server URL``)."""
from __future__ import annotations

import argparse
from typing import Any

from faultline.cli.common import local_db
from faultline.settings import settings


def add_server(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", default=settings().server, metavar="URL",
                   help="match on a running Faultline service, e.g. http://127.0.0.1:8000 "
                        "(default: $FAULTLINE_SERVER, else the local database)")


class BackendError(Exception):
    """The log could not be matched (service unreachable, an error answer, no database)."""


def match_log(text: str, *, server: str | None, db: str | None, kb: str, environment: Any = None,
              limit: int = 5, lang: str = "en") -> dict[str, Any]:
    """The /match result as JSON (a dict), from the service or the local database."""
    if server:
        from faultline.client import Client, FaultlineError

        try:
            with Client(server, timeout=60) as c:
                return c.match_json(text, environment=environment, limit=limit, lang=lang)
        except FaultlineError as exc:
            if not exc.status:  # no answer at all
                raise BackendError(exc.message) from None
            raise BackendError(f"{server} answered {exc.status} {exc.code}: {exc.message}") from None
    from faultline.render.match import match_text
    from faultline.store.load import index_from_db

    db = local_db(db, kb)
    try:
        index = index_from_db(db, kb)
    except Exception as exc:  # noqa: BLE001 - a broken or unreadable database is reported, not raised
        raise BackendError(f"cannot read the knowledge base from {db}: {exc}") from None
    from faultline.render.evidence import with_local_reports  # rates from outcome reports (issue 11)
    return with_local_reports(match_text(index, text, environment=environment, limit=limit, lang=lang), db, index.entry, lang)


def entry_link(url: str, server: str | None) -> str:
    """An absolute link when a service is known, else the path on one."""
    return server.rstrip("/") + url if server else url
