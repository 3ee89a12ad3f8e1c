"""The FastAPI application: `uvicorn faultline.main:app` (or `faultline serve`)."""
from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.staticfiles import StaticFiles

from faultline.api import errors, export, guides, health, inbox, match, openapi, outcomes, pages, problems
from faultline.api.middleware import Edge
from faultline.mcp.endpoint import mount as mount_mcp
from faultline.service import KBService
from faultline.store.written import close_for_app
from faultline.settings import default_db, default_kb


def create_app(db_path: str | None = None, kb_root: str | None = None) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if not hasattr(app.state, "kb"):
            app.state.kb = KBService(db_path or default_db(), kb_root or default_kb())
        app.state.kb.start()
        try:
            yield
        finally:
            app.state.kb.close()
            close_for_app(app)  # tokens, reports, inbox
            del app.state.kb

    app = FastAPI(
        title="Faultline",
        version="0.1.0",
        description="Paste a failed ML-training log; get the known error, its root cause, ranked fixes and dead ends.",
        lifespan=lifespan,
        docs_url=None,  # served below from local files: no CDN
        redoc_url=None,
    )
    _install_docs(app)
    problems.install(app)
    app.add_middleware(Edge)
    openapi.install(app)
    app.include_router(match.router)
    app.include_router(health.router)
    app.include_router(export.router)
    app.include_router(guides.router)
    app.include_router(errors.router)
    app.include_router(outcomes.router)
    app.include_router(inbox.router)
    mount_mcp(app)  # the MCP tools at /mcp (streamable HTTP)
    pages.install(app)  # the home page, results, language switch, static files, HTML error pages
    return app


def _install_docs(app: FastAPI) -> None:
    """Interactive API docs at /docs with Swagger UI's files served by the app itself."""
    from pathlib import Path

    import swagger_ui  # swagger-ui-py: ships Swagger UI 5 (OpenAPI 3.1) as static files

    assets = Path(swagger_ui.__file__).resolve().parent / "static"
    app.mount("/docs-assets", StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs():
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="Faultline API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon-32x32.png",
        )


app = create_app()
