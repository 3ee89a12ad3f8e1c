"""Faultline for AI agents: an MCP server (`faultline mcp` over stdio, `/mcp` on the service)."""
