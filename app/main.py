"""The FastAPI application: `uvicorn app.main:app` (or `faultline serve`)."""
from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI

from app.api import errors, guides, match, problems, system
from app.service import KBService
from app.settings import default_db, default_kb


def create_app(db_path: str | None = None, kb_root: str | None = None) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if not hasattr(app.state, "kb"):
            app.state.kb = KBService(db_path or default_db(), kb_root or default_kb())
        yield

    app = FastAPI(
        title="Faultline",
        version="0.1.0",
        description="Paste a failed ML-training log; get the known error, its root cause, ranked fixes and dead ends.",
        lifespan=lifespan,
    )
    problems.install(app)
    app.include_router(match.router)
    app.include_router(system.router)
    app.include_router(guides.router)
    app.include_router(errors.router)
    try:
        from app.web import routes as web_routes
    except ImportError:  # the pages are optional for API-only deployments
        web_routes = None
    if web_routes is not None:
        web_routes.install(app)
    return app


app = create_app()
