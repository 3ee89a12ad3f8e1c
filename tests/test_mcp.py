"""The MCP server, driven by the `mcp` SDK's own client: `faultline mcp` over stdio as a real
subprocess, and the streamable HTTP transport at /mcp on a started service."""
from __future__ import annotations

import json
import sys

import anyio
import jsonschema
import pytest
from mcp import Client, StdioServerParameters

from faultline.store.load import load_into_db
from faultline.store.written import WrittenStore
from tests.conftest import BACKEND, KB, REPO, SEED_LINE
from tests.service import serve

REFERENCE_LOG = (KB / "examples" / "pytorch" / "nccl-timeout-allreduce" / "torch22-watchdog-terminated-4ranks.composed.log")
NEGATIVE_LOG = KB / "examples" / "negative" / "java-nullpointerexception.log"
# the tools' database here is always an SQLite file of its own: a second run on PostgreSQL would repeat this one
pytestmark = pytest.mark.skipif(BACKEND == "postgresql", reason="runs on its own SQLite file; see own_db")
TOOLS = {"match_log", "get_entry", "search_entries", "list_guides", "get_guide", "report_outcome"}


@pytest.fixture(scope="module")
def own_db(tmp_path_factory):
    """A database of its own: the outcome reports written here must not change other tests' rates."""
    db = tmp_path_factory.mktemp("mcpdb") / "faultline.db"
    load_into_db(KB, db)
    return db


@pytest.fixture(scope="module")
def service(own_db, tmp_path_factory):
    with serve(own_db, tmp_path_factory.mktemp("mcpsrv") / "serve.log") as base:
        yield base


def stdio(db, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "faultline.cli", "--kb", str(KB), "mcp", *extra,
                                                               *(["--db", str(db)] if db else [])], cwd=str(REPO))


async def call(c: Client, tools: dict, name: str, args: dict) -> dict:
    r = await c.call_tool(name, args)
    assert not r.is_error, r.content
    jsonschema.validate(r.structured_content, tools[name].output_schema)  # the result keeps its promise
    return r.structured_content


async def exercise_read_tools(target) -> None:
    async with Client(target) as c:
        listed = (await c.list_tools()).tools
        tools = {t.name: t for t in listed}
        assert set(tools) == TOOLS
        assert all(t.output_schema and t.description for t in listed)

        res = await call(c, tools, "match_log", {"text": REFERENCE_LOG.read_text()})
        assert res["matches"][0]["id"] == "pytorch/nccl-timeout-allreduce"
        top = res["matches"][0]
        assert top["fixes"] and top["avoid"] and top["url"] == "/errors/pytorch/nccl-timeout-allreduce"
        assert len(json.dumps(res)) < 12000  # concise enough for an agent's context
        res = await call(c, tools, "match_log", {"text": SEED_LINE, "lang": "zh", "environment": "torch==2.3.1"})
        assert res["matches"][0]["id"] == "pytorch/nccl-timeout-allreduce"
        assert "看门狗" in res["matches"][0]["title"]
        res = await call(c, tools, "match_log", {"text": NEGATIVE_LOG.read_text()})
        assert res["matches"] == []

        entry = await call(c, tools, "get_entry", {"entry_id": "pytorch/nccl-timeout-allreduce"})
        assert entry["id"] == "pytorch/nccl-timeout-allreduce" and len(entry["fixes"]) >= 2 and entry["docs"]
        found = await call(c, tools, "search_entries", {"query": "watchdog", "tag": "nccl", "domain": "pytorch"})
        assert "pytorch/nccl-timeout-allreduce" in [i["id"] for i in found["items"]]
        guides = await call(c, tools, "list_guides", {})
        assert "distributed-hangs" in [g["id"] for g in guides["items"]]
        guide = await call(c, tools, "get_guide", {"guide_id": "distributed-hangs", "lang": "zh"})
        assert guide["sections"] and guide["entries"]

        r = await c.call_tool("get_entry", {"entry_id": "pytorch/no-such-entry"})
        assert r.is_error and "not_found" in r.content[0].text
        assert "use search_entries" in r.content[0].text and "GET /" not in r.content[0].text  # the tool to use next
        r = await c.call_tool("get_guide", {"guide_id": "no-such-guide"})
        assert r.is_error and "use list_guides" in r.content[0].text
        r = await c.call_tool("match_log", {"text": "   "})
        assert r.is_error and "empty_text" in r.content[0].text
        await exercise_agent_contract(c, tools)
        # an id is never a path: '../export' would reach another route through the in-process client
        for tool, arg, bad in (("get_entry", "entry_id", "../export"), ("get_entry", "entry_id", "pytorch/../../inbox"),
                               ("get_guide", "guide_id", "../export")):
            r = await c.call_tool(tool, {arg: bad})
            assert r.is_error and "not an entry id" in r.content[0].text or "not a guide id" in r.content[0].text


SHAPE_ON_RANK_1 = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/workspace/train.py", line 30, in <module>
[rank1]:     loss = criterion(model(x), y)
[rank1]: RuntimeError: mat1 and mat2 shapes cannot be multiplied (16x63 and 64x32)
[rank0]:[E1203 10:12:01.000000000 ProcessGroupGloo.cpp:143] Gloo connectFullMesh failed
[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.0.0.2]:29733
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
"""


async def exercise_agent_contract(c: Client, tools: dict) -> None:
    """What an agent author relies on: unknown arguments refused, codes the same in every language, rates as
    numbers, compact answers, errors without library links."""
    # an unknown argument is refused, naming the ones the tool takes (the README's old word 'language' included)
    r = await c.call_tool("match_log", {"text": SEED_LINE, "language": "zh"})
    text = r.content[0].text
    assert r.is_error and text.startswith("invalid_arguments: match_log takes no argument 'language'"), text
    assert "did you mean 'lang'?" in text and "text, environment, lang, limit, files" in text
    r = await c.call_tool("get_entry", {"id": "pytorch/nccl-timeout-allreduce"})
    assert r.is_error and "'id' (did you mean 'entry_id'?)" in r.content[0].text and "required: entry_id" in r.content[0].text
    assert tools["match_log"].input_schema.get("additionalProperties") is False
    # a value of the wrong kind: one line per field, no pydantic URL
    for args in ({"entry_id": "pytorch/nccl-timeout-allreduce", "lang": "fr"}, {}):
        r = await c.call_tool("get_entry", args)
        assert r.is_error and r.content[0].text.startswith("invalid_arguments: get_entry: "), r.content[0].text
        assert "pydantic" not in r.content[0].text and "http" not in r.content[0].text
    assert "lang: Input should be 'en' or 'zh'" in (await c.call_tool(
        "get_entry", {"entry_id": "pytorch/nccl-timeout-allreduce", "lang": "fr"})).content[0].text
    assert "entry_id: required" in (await c.call_tool("get_entry", {})).content[0].text

    # codes stay codes in Chinese; only the human text is translated; rates are numbers
    en = await call(c, tools, "match_log", {"text": SEED_LINE, "environment": "torch==2.3.1"})
    zh = await call(c, tools, "match_log", {"text": SEED_LINE, "environment": "torch==2.3.1", "lang": "zh"})
    for a, b in zip(en["matches"][0]["fixes"], zh["matches"][0]["fixes"]):
        assert a["rate_basis"] == b["rate_basis"] and a["rate_basis"] in ("estimated", "measured", "reports")
        assert isinstance(b["success_rate"], float) and a["success_rate"] == b["success_rate"]
    assert en["matches"][0]["role"] == zh["matches"][0]["role"] in ("cause", "symptom", "wrapper")
    assert en["verdict"]["blame"] == zh["verdict"]["blame"] and en["verdict"]["retry"] == zh["verdict"]["retry"]
    assert en["matches"][0]["title"] != zh["matches"][0]["title"]
    entry = await call(c, tools, "get_entry", {"entry_id": "pytorch/nccl-timeout-allreduce", "lang": "zh"})
    assert entry["rates"] in ("estimated", "measured") and isinstance(entry["fix_rate"], float)
    assert all(f["rate_basis"] in ("estimated", "measured", "reports") for f in entry["fixes"])

    # compact: the cause in full; what it explains by id and title, never again as a match with its fixes
    res = await call(c, tools, "match_log", {"text": SHAPE_ON_RANK_1})
    top = res["matches"][0]
    assert top["id"] == "pytorch/mat1-mat2-shape-mismatch" and top["explains_first_failure"]
    full = (await c.call_tool("get_entry", {"entry_id": top["id"]})).structured_content
    assert top["root_cause"] == full["root_cause"]  # in full, not cut
    assert top["fixes"] and len(top["fixes"]) <= 3 and all("fits_log" in f for f in top["fixes"])
    for m in res["matches"]:
        if m["confidence"] < 0.5:
            assert m["fixes"] == [] and m["avoid"] == [] and m["root_cause"] is None, m["id"]
    listed = [m["id"] for m in res["matches"]]
    for ref in (x for m in res["matches"] for x in m["consequences"]):
        assert set(ref) == {"id", "title"} and ref["id"] not in listed
    assert len(json.dumps(res)) < 6000, len(json.dumps(res))
    res = await call(c, tools, "match_log", {"text": REFERENCE_LOG.read_text()})
    assert len(json.dumps(res)) < 8000, len(json.dumps(res))
    assert all(set(f) == {"kind", "text"} for f in res["findings"])


def test_stdio_local_database(own_db):
    anyio.run(exercise_read_tools, stdio(own_db))


def test_http_on_the_service(service):
    anyio.run(exercise_read_tools, f"{service}/mcp")


def test_stdio_against_a_server(service):
    anyio.run(exercise_read_tools, stdio(None, "--server", service))


def test_report_outcome_over_http(own_db, service):
    store = WrittenStore.open(own_db)
    try:
        _, token = store.create_token("report", name="mcp-test")
    finally:
        store.close()

    async def go():
        async with Client(f"{service}/mcp") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            args = {"entry_id": "pytorch/nccl-timeout-allreduce", "workaround": 1, "worked": True}
            r = await c.call_tool("report_outcome", args)
            assert r.is_error and "unauthorized" in r.content[0].text
            r = await c.call_tool("report_outcome", {**args, "token": "fl_not-a-real-token"})
            assert r.is_error and "invalid_token" in r.content[0].text
            first = await call(c, tools, "report_outcome", {**args, "token": token, "note": "fixed by rank 3's OOM"})
            assert first["entry"] == "pytorch/nccl-timeout-allreduce" and first["repeat"] is False
            assert first["rate"]["basis"] == "reports" and first["rate"]["reports"] == 1
            assert isinstance(first["rate"]["value"], float) and isinstance(first["fix_rate"]["value"], float)
            again = await call(c, tools, "report_outcome", {**args, "token": token})
            assert again["repeat"] is True and again["id"] == first["id"]  # counted once
            r = await c.call_tool("report_outcome", {**args, "workaround": 99, "token": token})
            assert r.is_error and "not_found" in r.content[0].text and "as get_entry lists them" in r.content[0].text
            assert "GET /" not in r.content[0].text
            r = await c.call_tool("report_outcome", {**args, "entry_id": "pytorch/no-such-entry", "token": token})
            assert r.is_error and "use search_entries" in r.content[0].text
            r = await c.call_tool("report_outcome", {**args, "token": token, "fix": 1})
            assert r.is_error and "takes no argument 'fix'" in r.content[0].text and "workaround" in r.content[0].text

    anyio.run(go)


def test_the_service_loads_the_mcp_sdk_only_when_mcp_is_first_asked(own_db, tmp_path):
    """The SDK costs each worker about 30 MB: the app does not import it until a request reaches /mcp, and the
    first requests, arriving together on a fresh service, are all answered by the one server it then starts."""
    import subprocess

    import httpx

    probe = "import sys, faultline.main; print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with serve(own_db, tmp_path / "serve.log") as base:
        async def first_calls():
            async with httpx.AsyncClient(timeout=60) as client:
                replies = []

                async def one():
                    replies.append(await client.post(base + "/mcp", json=listing, headers=headers))

                async with anyio.create_task_group() as tg:
                    for _ in range(8):
                        tg.start_soon(one)
                return replies

        replies = anyio.run(first_calls)
        assert [r.status_code for r in replies] == [200] * 8
        assert all({t["name"] for t in r.json()["result"]["tools"]} == TOOLS for r in replies)
        # a GET still gets its 405 (no SSE stream is held open), before and after the start
        assert httpx.get(base + "/mcp", timeout=10).status_code == 405
