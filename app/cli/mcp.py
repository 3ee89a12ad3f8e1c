"""`faultline mcp`: an MCP server over stdio, for AI coding agents (tools in app/mcp/server.py)."""
from __future__ import annotations

import sys

from faultline.cli.backend import add_server
from faultline.cli.common import add_db


def register(sub) -> None:
    p = sub.add_parser(
        "mcp", help="serve the MCP tools over stdio (for AI agents)",
        description="An MCP server on standard input/output: match_log, get_entry, search_entries, list_guides, "
                    "get_guide, report_outcome. Answers from the local database, or from a service with --server.",
        epilog='example (an agent\'s MCP config): {"command": "faultline", "args": ["mcp", "--db", "faultline.db"]}')
    add_db(p)
    add_server(p)
    p.set_defaults(fn=run)


def run(args) -> int:
    import anyio

    from faultline.client import AsyncClient
    from faultline.mcp.server import build_server, in_process

    if args.server:
        server = args.server
        anyio.run(build_server(lambda: AsyncClient(server, timeout=60)).run_stdio_async)
        return 0

    from faultline.cli.common import local_db
    from faultline.main import create_app

    app = create_app(db_path=local_db(args.db, args.kb), kb_root=str(args.kb))

    async def serve() -> None:
        async with app.router.lifespan_context(app):
            await build_server(in_process(app)).run_stdio_async()

    try:
        anyio.run(serve)
    except KeyboardInterrupt:
        return 130
    return 0
