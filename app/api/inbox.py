"""GET /inbox: unknown errors people pasted, grouped (curate token); and the /match hook that fills it."""
from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError

from faultline.api.outcomes import Refused, bearer
from faultline.api.problems import problem
from faultline.inbox import enabled, group_of, group_view
from faultline.schemas.common import ErrorBody, errors
from faultline.schemas.outcomes import InboxOut
from faultline.store.written import store_for_app

router = APIRouter(tags=["inbox"])
log = logging.getLogger("faultline")


@router.get("/inbox", summary="Unknown errors people pasted, grouped, most frequent first; needs a 'curate' token",
            response_model=InboxOut, responses={503: {"model": ErrorBody, "description": "the database is unavailable"},
                                                **errors(401, 403, 422)})
async def inbox(request: Request, limit: int = Query(100, ge=1, le=1000)):
    try:
        await run_in_threadpool(bearer, request, "curate")
        rows = await run_in_threadpool(store_for_app(request.app).inbox, limit)
    except Refused as r:
        return r.response
    except DBAPIError:
        return problem(503, "database_unavailable", "the database is busy or unavailable; try again")
    return JSONResponse({"enabled": enabled(), "groups": [group_view(r) for r in rows]})


def group_for(result: dict[str, Any], text: str):
    """The inbox group of a match result, or None (inbox off, something matched, nothing to keep).

    Called in the match's own thread (app/api/match.py): scrubbing reads a bounded window of one line
    with linear-time patterns, so its cost is fixed whatever the paste."""
    if not enabled() or result.get("matches"):
        return None
    return group_of(result, text)


async def note_unknown(request: Request, result: dict[str, Any], text: str) -> None:
    """With FAULTLINE_INBOX=1, count a paste nothing matched in the inbox (scrubbed first).

    The inbox is a side channel: a failure here is logged and never fails the /match request.
    """
    if "_inbox_group" in result:
        group = result.pop("_inbox_group")  # computed where the match ran
    elif not enabled() or result.get("matches"):
        return
    else:
        group = await run_in_threadpool(group_of, result, text)
    if group is None:
        return
    store = store_for_app(request.app)
    try:
        await run_in_threadpool(store.record_unknown, *group)
    except DBAPIError as exc:  # the database is down: said once by the store, not per paste
        store.went_down(exc)
    except Exception:  # noqa: BLE001 - the answer to the user matters more than the inbox
        log.exception("could not record an unknown error in the inbox")
