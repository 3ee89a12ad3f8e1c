"""GET /healthz: liveness and what is loaded (answered on the event loop: never waits for a match)."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.api.deps import snapshot
from app.schemas.common import Health

router = APIRouter(tags=["system"])


@router.get("/healthz", summary="Liveness and what is loaded", response_model=Health)
async def healthz(request: Request) -> Health:
    snap = snapshot(request)
    return Health(status="ok" if len(snap.entries) else "degraded", entries=len(snap.entries),
                  guides=len(snap.guides), generation=snap.generation, loaded_at=snap.loaded_at)
