"""The typed client (`faultline.client`) against a started service over HTTP: sync and async."""
from __future__ import annotations

import anyio
import httpx
import pytest

from faultline.client import AsyncClient, Client, FaultlineError, InvalidRequest, NotFound, Unauthorized
from faultline.schemas.entries import EntryList, EntryView
from faultline.schemas.match import MatchResponse
from tests.conftest import KB, SEED_LINE
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
