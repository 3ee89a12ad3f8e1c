"""GET /healthz: liveness, readiness and what is loaded (answered on the event loop: never waits for a
match, never touches the database; the database's state is what its last use found)."""
from __future__ import annotations

import time

from fastapi import APIRouter, Request

from faultline.api.deps import snapshot
from faultline.schemas.common import Health

router = APIRouter(tags=["system"])


@router.get("/healthz", summary="Liveness, readiness and what is loaded", response_model=Health)
async def healthz(request: Request) -> Health:
    snap = snapshot(request)
    kb = request.app.state.kb
    store = getattr(request.app.state, "written", None)
    # the watcher polls the database twice a second; the report store's own failure counts until its retry
    db_ok = getattr(kb, "db_available", True) and (store is None or store.available
                                                   or time.monotonic() >= store.retry_at)
    db_gen = getattr(kb, "db_generation", None)
    stale = db_gen is not None and snap.generation is not None and db_gen != snap.generation
    ready = db_ok and len(snap.entries) > 0
    return Health(status="ok" if ready else "degraded", entries=len(snap.entries),
                  guides=len(snap.guides), generation=snap.generation, loaded_at=snap.loaded_at,
                  ready=ready, database="ok" if db_ok else "unavailable", stale=stale, db_generation=db_gen)
