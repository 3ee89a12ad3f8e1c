"""The typed client (`faultline.client`) against a started service over HTTP: sync and async."""
from __future__ import annotations

import anyio
import httpx
import pytest

from faultline.client import AsyncClient, Client, FaultlineError, InvalidRequest, NotFound, Unauthorized
from faultline.schemas.entries import EntryList, EntryView
from faultline.schemas.match import MatchResponse
from tests.conftest import KB, REPO, SEED_LINE
from tests.service import started_service  # noqa: F401 - a fixture: the real service over HTTP

LOG = KB / "examples" / "pytorch" / "cuda-out-of-memory" / "ddp-8gpu-rank3-oom-then-watchdog-timeouts.composed.log"
NCCL = "pytorch/nccl-timeout-allreduce"


def same_as_raw(model, raw) -> None:
    """Every field the model holds has the value the service sent (nothing invented or altered)."""
    def check(held, sent, path):
        if isinstance(held, dict):
            assert isinstance(sent, dict), path
            for k, v in held.items():
                assert k in sent, f"{path}/{k} is not in the response"
                check(v, sent[k], f"{path}/{k}")
        elif isinstance(held, list):
            assert isinstance(sent, list) and len(held) == len(sent), path
            for i, (a, b) in enumerate(zip(held, sent)):
                check(a, b, f"{path}[{i}]")
        else:
            assert held == sent, f"{path}: {held!r} != {sent!r}"

    held = model.model_dump(mode="json", exclude_unset=True)
    for timing in ("took_ms",):  # differs between two requests by nature
        held.pop(timing, None), raw.pop(timing, None)
    check(held, raw, "")


def test_sync_round_trips(started_service):  # noqa: F811
    with Client(started_service) as fl:
        res = fl.match(LOG.read_text(), environment={"torch": "2.5.1"}, limit=3)
        assert isinstance(res, MatchResponse)  # the API's own model
        assert res.matches[0].id == "pytorch/cuda-out-of-memory" and res.root_cause.rank == 3
        assert res.matches[0].workarounds[0].success_rate > 0
        raw = httpx.post(f"{started_service}/match", json={"text": LOG.read_text(), "environment": {"torch": "2.5.1"},
                                                            "limit": 3}).json()
        same_as_raw(res, raw)

        page = fl.errors("watchdog", tag="nccl", domain="pytorch", per_page=50)
        assert isinstance(page, EntryList) and NCCL in [i.id for i in page.items] and page.total == len(page.items)
        same_as_raw(page, httpx.get(f"{started_service}/errors", params={"q": "watchdog", "tag": "nccl",
                                                                        "domain": "pytorch", "per_page": 50}).json())

        entry = fl.error(NCCL)
        assert isinstance(entry, EntryView) and entry.id == NCCL and len(entry.workarounds) >= 2
        same_as_raw(entry, httpx.get(f"{started_service}/errors/{NCCL}").json())
        assert "看门狗" in fl.error(NCCL, lang="zh").title
        assert Client(started_service, lang="zh").error(NCCL).lang == "zh"

        assert [g.id for g in fl.guides().items] == ["distributed-hangs"]
        assert fl.guide("distributed-hangs").sections
        assert fl.health().entries >= 40


def test_errors_carry_the_api_code(started_service):  # noqa: F811
    with Client(started_service) as fl:
        with pytest.raises(NotFound) as e:
            fl.error("pytorch/no-such-entry")
        assert e.value.status == 404 and e.value.code == "not_found" and "no-such-entry" in e.value.message
        with pytest.raises(InvalidRequest) as e:
            fl.match("   \n")
        assert e.value.code == "empty_text"
        with pytest.raises(InvalidRequest) as e:
            fl.error(NCCL, lang="fr")
        assert e.value.code == "unsupported_language"
        with pytest.raises(Unauthorized) as e:
            Client(started_service, token="fl_wrong").report_outcome(NCCL, True, workaround=1)
        assert e.value.status == 401 and e.value.code == "invalid_token"
    with pytest.raises(FaultlineError) as e:
        Client("http://127.0.0.1:9", timeout=5).health()
    assert e.value.code == "unreachable"


def test_async_round_trips(started_service):  # noqa: F811
    async def go():
        async with AsyncClient(started_service, lang="en") as fl:
            res = await fl.match(SEED_LINE)
            assert isinstance(res, MatchResponse) and res.matches[0].id == NCCL
            assert NCCL in [i.id for i in (await fl.errors(tag="nccl", per_page=50)).items]
            assert (await fl.error(NCCL)).url == f"/errors/{NCCL}"
            with pytest.raises(NotFound):
                await fl.guide("no-such-guide")
            # two requests at once on one client
            a, b = await _both(fl.error(NCCL), fl.match(LOG.read_text()))
            assert a.id == NCCL and b.matches[0].id == "pytorch/cuda-out-of-memory"

    anyio.run(go)


async def _both(x, y):
    out = [None, None]

    async def put(i, aw):
        out[i] = await aw

    async with anyio.create_task_group() as tg:
        tg.start_soon(put, 0, x)
        tg.start_soon(put, 1, y)
    return out


# --------------------------------------------------------------------------- the OpenAPI schema keeps its promise

LOGSETS = REPO / "tests" / "data" / "logsets"
INTERRUPTED = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/workspace/train.py", line 41, in <module>
[rank1]:     time.sleep(5)
[rank1]: KeyboardInterrupt
[rank0]: Traceback (most recent call last):
[rank0]:   File "/workspace/train.py", line 38, in <module>
[rank0]:     dist.all_reduce(t)
[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 2501, in all_reduce
[rank0]:     work = group.allreduce([tensor], opts)
[rank0]: KeyboardInterrupt
"""
DESYNC = "\n".join(  # two ranks time out in different collectives: the finding different_step
    f"[rank{r}]:[E0814 05:41:19.006734112 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
    f"timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600049 "
    "milliseconds before timing out." for r, seq, op in ((0, 812, "ALLREDUCE"), (1, 813, "BROADCAST")))


def strict(node):
    """The schema with every declared object closed (`additionalProperties: false`): a field the JSON has
    but the schema does not declare fails validation.  Maps (dict[str, X]) have no `properties` and stay open."""
    if isinstance(node, dict):
        node = {k: strict(v) for k, v in node.items()}
        if isinstance(node.get("properties"), dict):
            node["additionalProperties"] = False
        return node
    if isinstance(node, list):
        return [strict(v) for v in node]
    return node


def match_validator(base: str):
    import jsonschema

    doc = httpx.get(f"{base}/openapi.json").json()
    ok = doc["paths"]["/match"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/MatchResponse"}  # /match declares the body it sends
    schema = {"$ref": ok["$ref"], "components": strict(doc["components"])}
    return jsonschema.Draft202012Validator(schema)


def _files(folder):
    files = [("files", (str(p.relative_to(folder)), p.read_bytes(), "application/octet-stream"))
             for p in sorted(folder.rglob("*")) if p.is_file()]
    assert files, folder
    return files


def real_match_responses(base: str):
    """(what, body) of /match answers that between them carry every part of the response: a multi-rank
    log with versions (rates, evidence, workaround ids, conditions, dead ends, versions, guides), the same
    in Chinese, collective desync findings, benign lines, an unknown error (a derived verdict), a run
    stopped by its user, sets of files (file places, timeline, py-spy stacks, skipped files), and an
    example log of every domain of the KB."""
    posts = [("oom", {"text": LOG.read_text(), "environment": {"torch": "2.5.1"}, "limit": 10}),
             ("oom zh", {"text": LOG.read_text(), "environment": "torch==2.5.1\nnumpy==1.26.4", "lang": "zh"}),
             ("unknown", {"text": 'Traceback (most recent call last):\n  File "/workspace/a.py", line 3, in <module>\n'
                                  '    d["x"]\nKeyError: \'x\'\n'}),
             ("interrupted", {"text": INTERRUPTED}),
             ("desync", {"text": DESYNC}),
             ("seed", {"text": SEED_LINE})]
    for folder in sorted(p for p in (KB / "examples").iterdir() if p.is_dir() and p.name != "negative"):
        first = min(folder.glob("*/*.log"), default=None)
        if first is not None:
            posts.append((str(first.relative_to(KB)), {"text": first.read_text(errors="replace"), "limit": 10}))
    for neg in sorted((KB / "examples" / "negative").glob("*.log"))[::20]:
        posts.append((str(neg.relative_to(KB)), {"text": neg.read_text(errors="replace")}))
    with httpx.Client(base_url=base, timeout=60) as http:
        for what, body in posts:
            r = http.post("/match", json=body)
            assert r.status_code == 200, (what, r.text[:300])
            yield what, r.json()
        for folder in ("torchrun-4ranks-rank2-first", "hang-4ranks-pyspy", "spawn-3ranks-rank1-first",
                       "errorfile-only-2ranks"):
            files = _files(LOGSETS / folder) + [("files", ("core.bin", b"\x00\x01\x02" * 50, "application/octet-stream"))]
            r = http.post("/match", files=files, data={"lang": "en"})
            assert r.status_code == 200, (folder, r.text[:300])
            yield folder, r.json()


def test_every_field_of_a_real_match_answer_is_in_the_openapi_schema(started_service):  # noqa: F811
    validator = match_validator(started_service)
    seen: set[str] = set()
    for what, body in real_match_responses(started_service):
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, f"{what}: " + "; ".join(
            f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5])
        seen |= set(body) | {f"finding:{f['kind']}" for f in body["findings"]}
        seen |= {f"match:{k}" for m in body["matches"] for k in m}
    # the answers above did carry the parts the schema is checked on
    for part in ("files", "skipped_files", "timeline", "match:fix_rate_evidence", "finding:first_failing_rank",
                 "finding:different_step", "finding:stack_outlier"):
        assert part in seen, part


def test_the_schema_check_catches_an_undeclared_field(started_service):  # noqa: F811
    validator = match_validator(started_service)
    body = httpx.post(f"{started_service}/match", json={"text": LOG.read_text()}).json()
    assert validator.is_valid(body)
    body["matches"][0]["workarounds"][0]["surprise"] = 1
    assert not validator.is_valid(body)


def _no_extra(model, path="") -> list[str]:
    """The fields a model holds only as untyped extras (model_extra), anywhere inside it."""
    from pydantic import BaseModel

    out = []
    if isinstance(model, BaseModel):
        out += [f"{path}/{k}" for k in (model.model_extra or {})]
        for name in type(model).model_fields:
            out += _no_extra(getattr(model, name), f"{path}/{name}")
    elif isinstance(model, (list, tuple)):
        for i, v in enumerate(model):
            out += _no_extra(v, f"{path}[{i}]")
    elif isinstance(model, dict):
        for k, v in model.items():
            out += _no_extra(v, f"{path}/{k}")
    return out


def test_the_typed_client_exposes_the_evidence_of_every_rate(started_service):  # noqa: F811
    with Client(started_service) as fl:
        res = fl.match(LOG.read_text(), environment={"torch": "2.5.1"})
        top = res.matches[0]
        assert top.fix_rate_evidence.basis == "estimated" and top.fix_rate_evidence.value == top.fix_rate
        assert top.fix_rate_evidence.label == "estimated" and top.fix_rate_evidence.reports == 0
        w = top.workarounds[0]
        assert w.id.startswith("wa-") and w.index >= 1 and w.success_rate_evidence.basis == "estimated"
        assert w.success_rate_evidence.interval[0] <= w.success_rate <= w.success_rate_evidence.interval[1]
        assert any(x.condition for x in top.workarounds) and any(x.tradeoff for x in top.workarounds)
        d = top.dead_ends[0]
        assert d.id.startswith("de-") and d.index >= 1 and d.fail_rate_evidence.basis == "estimated" and d.why_fails
        assert top.versions[0].package and top.guides[0].url.startswith("/guides/")
        assert res.log.failed_ranks == [] or res.log.failed_ranks[0].first in (True, False)
        assert _no_extra(res) == []  # every field the service sent is a declared, typed field
        zh = fl.match(LOG.read_text(), lang="zh").matches[0]
        assert zh.fix_rate_evidence.basis == "estimated" and zh.fix_rate_evidence.label != "estimated"  # code vs words
