"""Faultline as an MCP server (the official `mcp` SDK): tools to match a log, read and search
entries, read the guides, and report whether a fix worked.

Every tool asks the Faultline HTTP API (through `app.client.AsyncClient`), so its answers are the
API's, with the same evidence, validation and tokens: on the service itself (``/mcp``) over an
in-process transport, from `faultline mcp` either the local database the same way or a
service named with ``--server``.
"""
from __future__ import annotations

import difflib
import logging
import re
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Callable, Literal, Optional, Union
from urllib.parse import quote

import httpx
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import ValidationError

from faultline.entry import GUIDE_ID_RE, ID_RE
from faultline.settings import settings
from faultline.client import AsyncClient, FaultlineError, _raise_for
from faultline.mcp.models import (GuideOut, GuidesOut, GuideSummary, LogText, MatchOut, EntryOut, EntrySummary, OutcomeOut, SearchOut,
                            entry_out, guide_out, match_out, outcome_out)

Lang = Literal["en", "zh"]
ClientFactory = Callable[[], AsyncClient]
INSTRUCTIONS = (
    "Faultline knows ML-training errors (PyTorch distributed, CUDA, data loading, DeepSpeed, FSDP, Hugging Face). "
    "Give match_log the traceback or the end of the training log (all ranks, as printed): it names the first "
    "failing rank and the known error, with ranked fixes and the dead ends to avoid. An empty 'matches' means "
    "the error is not in the knowledge base (e.g. a bug in the user's own code). Use get_entry for an entry's "
    "full text, search_entries to browse, get_guide for playbooks such as distributed hangs."
)
logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per in-process API call is noise
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)


def _check_id(value: str, pattern, what: str) -> None:
    """An id goes into a URL path: anything but an id's shape (e.g. '../export') is refused, never sent."""
    if not pattern.match(value or ""):
        raise ToolError(f"not {what}: {value[:80]!r}")


# what to do next when a tool's call fails, by (tool, error code): the tool that helps
_NEXT = {
    ("get_entry", "not_found"): "use search_entries to find the entry's id",
    ("report_outcome", "not_found"): "use search_entries to find the entry's id, get_entry for its fixes' index",
    ("get_guide", "not_found"): "use list_guides for the guide ids",
    ("report_outcome", "unauthorized"): "pass a token with the 'report' scope as 'token'",
    ("report_outcome", "invalid_token"): "pass a token with the 'report' scope as 'token' ('faultline token create "
                                         "--scope report' makes one)",
}
_API_SEE = re.compile(r"; see GET /\S+(?: for the list)?")
_API_SHOWN = re.compile(r"as shown in GET /errors/\S+")
# words agents use for an argument, and the argument meant
_ALIASES = {"language": "lang", "locale": "lang", "id": "entry_id", "entry": "entry_id", "log": "text",
            "traceback": "text", "q": "query", "guide": "guide_id", "env": "environment", "versions": "environment"}


def _fail(exc: FaultlineError, tool: str) -> ToolError:
    """The API's error in one line, with the tool to use next (the API's own pointers name HTTP routes)."""
    message = _API_SHOWN.sub("as get_entry lists them", _API_SEE.sub("", exc.message))
    if (tool, exc.code) in _NEXT and "get_entry" not in message:
        message += f"; {_NEXT[(tool, exc.code)]}"
    return ToolError(f"{exc.code}: {message}")


def _arguments_of(tool) -> tuple[list[str], list[str]]:
    """The names a tool takes, and those it needs."""
    props = tool.parameters.get("properties") or {}
    return list(props), list(tool.parameters.get("required") or [])


def check_arguments(tool, arguments: dict[str, Any]) -> None:
    """Refuse an argument the tool does not take (naming those it does) and a value of the wrong type or
    choice (one line per field, without the validation library's links)."""
    allowed, required = _arguments_of(tool)
    names = ", ".join(allowed) + (f" (required: {', '.join(required)})" if required else "")
    unknown = [k for k in arguments if k not in allowed]
    if unknown:
        hints = []
        for k in unknown:
            guess = _ALIASES.get(k.lower()) if _ALIASES.get(k.lower()) in allowed else None
            guess = guess or next(iter(difflib.get_close_matches(k, allowed, n=1, cutoff=0.6)), None)
            hints.append(f"'{k}' (did you mean '{guess}'?)" if guess else f"'{k}'")
        raise ToolError(f"invalid_arguments: {tool.name} takes no argument {', '.join(hints)}; "
                        f"its arguments are: {names}")
    try:
        tool.fn_metadata.validate_arguments(arguments)
    except ValidationError as exc:
        problems = []
        for e in exc.errors(include_url=False):
            where = ".".join(str(x) for x in e.get("loc") or ()) or "arguments"
            what = "required" if e.get("type") == "missing" else e.get("msg", "invalid")
            problems.append(f"{where}: {what}")
        raise ToolError(f"invalid_arguments: {tool.name}: {'; '.join(dict.fromkeys(problems))}; "
                        f"its arguments are: {names}") from None


class _Server(MCPServer):
    """The SDK's server, stricter about arguments: an unknown one is refused, not silently dropped."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Optional[Context] = None):
        tool = self._tool_manager.get_tool(name)
        if tool is not None:
            check_arguments(tool, arguments or {})
        return await super().call_tool(name, arguments, context)


def build_server(client: ClientFactory) -> MCPServer:
    """The MCP server; ``client()`` gives a (not yet entered) AsyncClient on the API."""
    root = logging.getLogger()
    guard = logging.NullHandler()  # the SDK calls logging.basicConfig(): keep the host's logging as it is
    root.addHandler(guard)
    try:
        mcp = _Server("faultline", title="Faultline", instructions=INSTRUCTIONS, version="0.1.0")
    finally:
        root.removeHandler(guard)

    @asynccontextmanager
    async def api(tool: str) -> AsyncIterator[AsyncClient]:
        c = client()
        try:
            yield c
        except FaultlineError as exc:
            raise _fail(exc, tool) from None
        finally:
            await c.aclose()

    @mcp.tool(title="Match a training log", annotations=READ_ONLY)
    async def match_log(text: str = "", environment: Optional[Union[str, dict[str, str]]] = None, lang: Lang = "en",
                        limit: int = 3, files: Optional[list[LogText]] = None) -> MatchOut:
        """Find the known errors in a traceback or multi-rank training log (paste it as printed).

        Returns the first failure (line and rank), the matching entries best first with their top fixes
        (success rates) and the dead ends to avoid, and a verdict: who must act (`blame`) and whether to
        rerun as is (`retry`: transient) or only after a fix. `environment`: versions as {"torch": "2.3.1"} or pasted
        `pip freeze` / `python -m torch.utils.collect_env` text. `lang`: en or zh. `files`: several logs of
        one job instead (each rank's stderr, torchelastic error files, one log per host), each with its path:
        one answer, the first failing rank across them, and the file and line of the first failure."""
        if files:
            parts = [("files", (f.name, f.text.encode("utf-8"), "text/plain")) for f in files]
            if text.strip():
                parts.append(("files", ("pasted text", text.encode("utf-8"), "text/plain")))
            async with api("match_log") as c:
                r = await c._http.post("/match", files=parts, headers=c._headers(),
                                       data={"limit": str(max(1, min(limit, 10))), "lang": lang,
                                             **({"environment": environment} if isinstance(environment, str) else {})})
                _raise_for(r)
                return match_out(r.json())
        if not text.strip():
            raise ToolError("empty_text: give the traceback or log to match as 'text' (or several logs as 'files')")
        async with api("match_log") as c:
            res = await c.match_json(text, environment=environment, limit=max(1, min(limit, 10)), lang=lang)
        return match_out(res)

    @mcp.tool(title="Get an entry", annotations=READ_ONLY)
    async def get_entry(entry_id: str, lang: Lang = "en") -> EntryOut:
        """One entry by id (e.g. "pytorch/nccl-timeout-allreduce"): error text, root cause, every fix with
        its command and success rate, dead ends, affected versions, official docs."""
        _check_id(entry_id, ID_RE, "an entry id like 'pytorch/cuda-out-of-memory' (search_entries lists them)")
        async with api("get_entry") as c:
            return entry_out(await c.get_json(f"/errors/{quote(entry_id)}", {"lang": lang}))

    @mcp.tool(title="Search entries", annotations=READ_ONLY)
    async def search_entries(query: Optional[str] = None, domain: Optional[str] = None, tag: Optional[str] = None,
                             lang: Lang = "en", limit: int = 20) -> SearchOut:
        """Search the knowledge base by words (English or Chinese), domain (e.g. pytorch, deepspeed,
        transformers) and tag (e.g. nccl, oom); ids and titles, best first."""
        params: dict[str, Any] = {"lang": lang, "per_page": max(1, min(limit, 100))}
        params.update({k: v for k, v in (("q", query), ("domain", domain), ("tag", tag)) if v})
        async with api("search_entries") as c:
            data = await c.get_json("/errors", params)
        return SearchOut(total=data.get("total", 0),
                         items=[EntrySummary(id=i["id"], title=i.get("title") or i["id"], domain=i.get("domain"),
                                             tags=i.get("tags") or [], fix_rate=i.get("fix_rate"))
                                for i in data.get("items") or []])

    @mcp.tool(title="List guides", annotations=READ_ONLY)
    async def list_guides(lang: Lang = "en") -> GuidesOut:
        """The playbooks (e.g. how to diagnose a distributed hang)."""
        async with api("list_guides") as c:
            data = await c.get_json("/guides", {"lang": lang})
        return GuidesOut(items=[GuideSummary(id=g["id"], title=g.get("title") or g["id"], summary=g.get("summary"))
                                for g in data.get("items") or []])

    @mcp.tool(title="Get a guide", annotations=READ_ONLY)
    async def get_guide(guide_id: str, lang: Lang = "en") -> GuideOut:
        """One playbook by id, section by section with its steps and commands."""
        _check_id(guide_id, GUIDE_ID_RE, "a guide id like 'distributed-hangs' (list_guides lists them)")
        async with api("get_guide") as c:
            return guide_out(await c.get_json(f"/guides/{quote(guide_id)}", {"lang": lang}))

    @mcp.tool(title="Report an outcome",
              annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True))
    async def report_outcome(entry_id: str, worked: bool, workaround: Optional[Union[int, str]] = None,
                             dead_end: Optional[Union[int, str]] = None, note: Optional[str] = None,
                             environment: Optional[Union[str, dict[str, str]]] = None,
                             token: Optional[str] = None, ctx: Optional[Context] = None) -> OutcomeOut:
        """Report whether a fix (`workaround`, 1-based index or id as get_entry lists them) or a dead end
        worked; it updates the rates everyone sees. Needs a Faultline token with the 'report' scope
        (`token`; over HTTP else the request's 'Authorization: Bearer' header; over stdio else
        $FAULTLINE_TOKEN). Reporting the same thing twice in 24 h counts once."""
        body: dict[str, Any] = {"worked": worked}
        for k, v in (("workaround", workaround), ("dead_end", dead_end), ("note", note), ("environment", environment)):
            if v is not None:
                body[k] = v
        token = token or _caller_token(ctx)
        if not token:
            raise ToolError("unauthorized: reporting needs a token with the 'report' scope: pass it as 'token' (over "
                            "stdio $FAULTLINE_TOKEN works too)")
        async with api("report_outcome") as c:
            return outcome_out(await c.post_json(f"/errors/{quote(entry_id)}/outcomes", body, auth=True, token=token))

    for tool in mcp._tool_manager.list_tools():  # the schemas say what check_arguments enforces
        tool.parameters["additionalProperties"] = False
    return mcp


def _caller_token(ctx: Optional[Context]) -> Optional[str]:
    """The token of whoever called the tool when none was given as an argument: over HTTP (/mcp) only
    the request's own ``Authorization: Bearer`` header (the service's $FAULTLINE_TOKEN is never lent to
    an anonymous caller); over stdio (`faultline mcp`, the user's own process) $FAULTLINE_TOKEN."""
    request = None
    try:
        request = ctx.request_context.request if ctx is not None else None
    except ValueError:  # no request context (called outside a request)
        request = None
    headers = getattr(request, "headers", None)
    if headers is not None:  # an HTTP request
        kind, _, value = (headers.get("authorization") or "").partition(" ")
        return value.strip() or None if kind.lower() == "bearer" else None
    return settings().token


def in_process(app) -> ClientFactory:
    """Clients that call ``app`` (the FastAPI service) directly, with no network."""
    return lambda: AsyncClient("http://faultline.internal", transport=httpx.ASGITransport(app=app), timeout=60)


def _transport_security():
    """DNS-rebinding protection for a service on loopback; the Host names allowed can be widened with
    FAULTLINE_MCP_ALLOWED_HOSTS (comma-separated, e.g. "faultline.example.org,faultline.example.org:*")."""
    from mcp.server.transport_security import TransportSecuritySettings

    extra = list(settings().mcp_allowed_hosts)
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", *extra]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"] + [f"https://{h}" for h in extra] \
        + [f"http://{h}" for h in extra]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)
