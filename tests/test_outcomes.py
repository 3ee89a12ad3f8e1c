"""Outcome reports over HTTP on a real SQLite file and a real PostgreSQL database: tokens, the error
answers, repeats, the rate limit, and rates that move on every surface (JSON, page, Markdown, export,
/match) from "estimated" to "from N reports"; reports survive every reload of kb/."""
from __future__ import annotations

import html

import pytest
from fastapi.testclient import TestClient

from faultline.main import create_app
from faultline.rates import posterior
from faultline.store.load import load_into_db
from faultline.store.written import WrittenStore
from tests.conftest import SEED_LINE
from tests.written_backends import BACKENDS, KB, make_target

SEED = "pytorch/nccl-timeout-allreduce"


@pytest.fixture(scope="module", params=BACKENDS)
def env(request, tmp_path_factory):
    target, cleanup = make_target(request.param, tmp_path_factory.mktemp(request.param))
    app = create_app(db_path=target, kb_root=str(KB))
    store = WrittenStore.open(target)
    with TestClient(app) as c:
        yield {"client": c, "store": store, "target": target, "kind": request.param}
    store.close()
    cleanup()


def token(env, scope="report") -> str:
    return env["store"].create_token(scope, f"test-{scope}")[1]


def post(env, tok, body, entry=SEED, **kw):
    headers = {"Authorization": f"Bearer {tok}"} if tok is not None else {}
    return env["client"].post(f"/errors/{entry}/outcomes", json=body, headers=headers, **kw)


def entry_json(env, entry=SEED):
    r = env["client"].get(f"/errors/{entry}.json")
    assert r.status_code == 200
    return r.json()


def by_index(view, kind="workarounds"):
    return {w["index"]: w for w in view[kind]}


def test_rates_are_estimates_until_reported(env):
    v = entry_json(env)
    assert v["fix_rate_evidence"]["basis"] == "estimated" and v["fix_rate_evidence"]["label"] == "estimated"
    assert v["reproduced_logs"] == v["evidence_count"]
    for w in v["workarounds"]:
        ev = w["success_rate_evidence"]
        assert ev["label"] == "estimated" and ev["reports"] == 0 and w["success_rate"] == ev["estimate"]
        assert ev["interval"][0] <= w["success_rate"] <= ev["interval"][1]
    md = env["client"].get(f"/errors/{SEED}.md").text
    assert "(estimated)" in md and "Reproduced logs" in md
    zh = env["client"].get(f"/errors/{SEED}.md?lang=zh").text
    assert "估计值" in zh
    page = html.unescape(env["client"].get(f"/errors/{SEED}", headers={"Accept": "text/html"}).text)
    assert "estimated" in page and "Reproduced logs" in page


def test_report_moves_rate_interval_and_count_on_every_surface(env):
    tok = token(env)
    before = by_index(entry_json(env))
    target = max(before, key=lambda i: before[i]["success_rate"])  # the top workaround, then it fails
    r = post(env, tok, {"workaround": target, "worked": False, "environment": {"torch": "2.3.1"}, "note": "no luck"})
    assert r.status_code == 201, r.text
    rep = r.json()
    assert rep["entry"] == SEED and rep["workaround"] == target and rep["worked"] is False and not rep["repeat"]
    assert rep["environment"] == {"torch": "2.3.1"} and rep["note"] == "no luck"
    assert rep["rate"]["reports"] == 1 and rep["rate"]["label"] == "from 1 report"

    after = entry_json(env)
    w = by_index(after)[target]
    ev = w["success_rate_evidence"]
    assert ev["reports"] == 1 and ev["successes"] == 0 and ev["basis"] == "reports"
    assert w["success_rate"] < before[target]["success_rate"]
    expected = posterior(before[target]["success_rate"], 0, 1)
    assert w["success_rate"] == pytest.approx(expected.mean, abs=1e-3)
    assert ev["interval"] == [pytest.approx(expected.low, abs=1e-3), pytest.approx(expected.high, abs=1e-3)]
    assert after["fix_rate_evidence"]["reports"] == 1  # one reporter, not fixed
    assert after["fix_rate"] < after["fix_rate_evidence"]["estimate"]

    md = env["client"].get(f"/errors/{SEED}.md").text
    assert "from 1 report, 90% interval" in md
    page = html.unescape(env["client"].get(f"/errors/{SEED}", headers={"Accept": "text/html"}).text)
    assert "from 1 report, 90% interval" in page
    export = env["client"].get("/export").json()
    mine = next(e for e in export["entries"] if e["id"] == SEED)
    assert by_index(mine)[target]["success_rate_evidence"]["reports"] == 1
    assert "from 1 report" in env["client"].get("/export?format=md").text
    listing = env["client"].get("/errors", params={"q": "allreduce"}).json()
    item = next(i for i in listing["items"] if i["id"] == SEED)
    assert item["fix_rate_evidence"]["reports"] == 1

    m = env["client"].post("/match", json={"text": SEED_LINE}).json()["matches"][0]
    assert m["id"] == SEED and m["fix_rate_evidence"]["reports"] == 1
    mw = {x["index"]: x for x in m["workarounds"]}
    assert mw[target]["success_rate_evidence"]["label"] == "from 1 report"
    assert all(x["success_rate_evidence"]["label"] == "estimated" for i, x in mw.items() if i != target)

    # the workaround's id works as well as its index; a success from another reporter counts too
    r = post(env, token(env), {"workaround": w["id"], "worked": True})
    assert r.status_code == 201 and r.json()["workaround"] == target
    assert by_index(entry_json(env))[target]["success_rate_evidence"]["reports"] == 2


def test_dead_end_report_moves_its_fail_rate(env):
    v = by_index(entry_json(env), "dead_ends")
    i = min(v)
    r = post(env, token(env), {"dead_end": i, "worked": False})
    assert r.status_code == 201, r.text
    d = by_index(entry_json(env), "dead_ends")[i]
    assert d["fail_rate_evidence"]["reports"] == 1 and d["fail_rate"] >= v[i]["fail_rate"]


def test_repeat_within_a_day_is_counted_once(env):
    tok = token(env)
    first = post(env, tok, {"workaround": 2, "worked": True})
    assert first.status_code == 201
    n = by_index(entry_json(env))[2]["success_rate_evidence"]["reports"]
    again = post(env, tok, {"workaround": 2, "worked": False, "note": "changed my mind"})
    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"] and again.json()["repeat"] is True
    assert again.json()["worked"] is True
    assert by_index(entry_json(env))[2]["success_rate_evidence"]["reports"] == n
    assert post(env, tok, {"workaround": 3, "worked": True}).status_code == 201  # another workaround is new


def test_missing_bad_revoked_and_wrong_scope_tokens(env):
    body = {"workaround": 1, "worked": True}
    r = post(env, None, body)
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    assert r.json()["error"]["status"] == 401
    assert env["client"].post(f"/errors/{SEED}/outcomes", json=body,
                              headers={"Authorization": "Basic dXNlcjpwdw=="}).status_code == 401
    assert post(env, "flt_not-a-real-token-at-all", body).status_code == 401
    assert post(env, "", body).status_code == 401
    tok = token(env)
    env["store"].revoke(str(env["store"].authenticate(tok).id))
    assert post(env, tok, body).json()["error"]["code"] == "invalid_token"
    r = post(env, token(env, "curate"), body)
    assert r.status_code == 403 and r.json()["error"]["code"] == "insufficient_scope"


def test_unknown_entry_or_workaround_is_404(env):
    tok = token(env)
    assert post(env, tok, {"workaround": 1, "worked": True}, entry="pytorch/no-such-error").status_code == 404
    assert post(env, tok, {"workaround": 1, "worked": True}, entry="no-such-domain").status_code in (404, 405)
    n = len(entry_json(env)["workarounds"])
    r = post(env, tok, {"workaround": n + 1, "worked": True})
    assert r.status_code == 404 and f"from 1 to {n}" in r.json()["error"]["message"]
    assert post(env, tok, {"workaround": "wa-0000000000", "worked": True}).status_code == 404
    assert post(env, tok, {"dead_end": 99, "worked": True}).status_code == 404


@pytest.mark.parametrize("body", [
    {"worked": True},
    {"workaround": 1},
    {"workaround": 1, "worked": "yes"},
    {"workaround": 0, "worked": True},
    {"workaround": -2, "worked": True},
    {"workaround": 1.5, "worked": True},
    {"workaround": 1, "dead_end": 1, "worked": True},
    {"workaround": 1, "worked": True, "note": "x" * 2049},
    {"workaround": 1, "worked": True, "note": "长" * 700},  # 2100 bytes in UTF-8
    {"workaround": 1, "worked": True, "environment": ["torch"]},
    {"workaround": 1, "worked": True, "color": "blue"},
    ["workaround", 1],
    {"workaround": None, "dead_end": 1, "worked": True},
    {"workaround": "", "worked": True},
    {"workaround": 1, "worked": True, "note": None},
])
def test_bad_body_is_422_in_the_error_shape(env, body):
    r = post(env, token(env), body)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["status"] == 422 and err["code"] in ("invalid_request", "invalid_json") and err["message"]


def test_not_json_and_a_note_of_exactly_2_kib(env):
    tok = token(env)
    r = env["client"].post(f"/errors/{SEED}/outcomes", content=b"{worked: yes",
                           headers={"Authorization": f"Bearer {tok}", "Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_json"
    r = post(env, tok, {"workaround": 1, "worked": True, "note": "n" * 2048})
    assert r.status_code == 201 and len(r.json()["note"]) == 2048


def test_a_burst_from_one_token_gets_429_with_retry_after(env):
    tok = token(env)
    codes = [post(env, tok, {"workaround": 1, "worked": True}).status_code for _ in range(30)]
    assert codes[0] == 201 and set(codes[1:]) == {200}
    r = post(env, tok, {"workaround": 2, "worked": True})
    assert r.status_code == 429
    assert 1 <= int(r.headers["retry-after"]) <= 60
    assert r.json()["error"]["code"] == "rate_limited"
    other = post(env, token(env), {"workaround": 2, "worked": True})  # another token is not limited
    assert other.status_code in (200, 201)


def test_reports_survive_a_reload_of_kb(env):
    tok = token(env)
    r = post(env, tok, {"workaround": 1, "worked": True})
    assert r.status_code in (200, 201)
    before = by_index(entry_json(env))[1]["success_rate_evidence"]["reports"]
    gen = env["client"].get("/healthz").json()["generation"]
    load_into_db(KB, env["target"])  # what `faultline load` does
    c = env["client"]
    for _ in range(100):  # the service notices the new generation within its poll interval
        if c.get("/healthz").json()["generation"] != gen:
            break
        import time

        time.sleep(0.1)
    assert c.get("/healthz").json()["generation"] != gen
    assert by_index(entry_json(env))[1]["success_rate_evidence"]["reports"] == before
    assert env["store"].authenticate(tok) is not None  # tokens too


def test_posterior_moves_from_the_estimate_towards_the_reports():
    prior = posterior(0.8)
    assert prior.mean == 0.8 and prior.basis == "estimated" and prior.low < 0.8 < prior.high
    few, many = posterior(0.8, 1, 3), posterior(0.8, 10, 30)
    assert 0.25 < many.mean < few.mean < 0.8
    assert (many.high - many.low) < (few.high - few.low) < (prior.high - prior.low)
    assert many.low < 10 / 40 < many.high
    assert posterior(1.0, 0, 1).mean < 1.0 and posterior(0.0).low == 0.0
    assert posterior(0.5, 2, 0).as_dict("zh")["label"] == "基于 2 份报告"


# --- kill -9 during a burst of reports ---------------------------------------------------------

def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _targets(store_target: str) -> list[tuple[str, int]]:
    from faultline.store.load import read_db

    entries, _, _ = read_db(store_target)
    return [(e.id, i) for e in entries for i in range(1, len(e.workarounds) + 1)]


@pytest.mark.parametrize("kind", BACKENDS)
def test_kill_9_during_a_burst_loses_no_acknowledged_report(kind, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    import httpx

    from tests.written_backends import REPO

    target, cleanup = make_target(kind, tmp_path)
    store = WrittenStore.open(target)
    try:
        tokens = [store.create_token("report", f"burst-{i}")[1] for i in range(6)]
        work = _targets(target)
        port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(REPO), "FAULTLINE_REPORTS_PER_MINUTE": "100000"}
        env.pop("FAULTLINE_INBOX", None)
        proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "serve", "--db", target,
                                 "--port", str(port), "--workers", "2"], cwd=REPO, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                try:
                    if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            else:
                pytest.fail("the service did not start")
            acked: list[dict] = []
            lock = threading.Lock()
            stop = threading.Event()

            def reporter(tok: str, offset: int):
                with httpx.Client(base_url=base, timeout=10) as c:
                    for n in range(len(work)):
                        if stop.is_set():
                            return
                        eid, idx = work[(offset + n) % len(work)]
                        try:
                            r = c.post(f"/errors/{eid}/outcomes", json={"workaround": idx, "worked": n % 3 != 0},
                                       headers={"Authorization": f"Bearer {tok}"})
                        except httpx.HTTPError:
                            return  # the service died mid-request: not acknowledged
                        if r.status_code == 201:
                            with lock:
                                acked.append(r.json())

            threads = [threading.Thread(target=reporter, args=(t, i * 17)) for i, t in enumerate(tokens)]
            for t in threads:
                t.start()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and len(acked) < 60:
                time.sleep(0.05)
            os.killpg(proc.pid, signal.SIGKILL)  # the supervisor and both workers, mid-burst
            proc.wait(timeout=30)
            stop.set()
            for t in threads:
                t.join(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        assert len(acked) >= 60, "the burst was too small to mean anything"
        survivors = WrittenStore.open(target)  # a fresh connection after the crash
        try:
            stored = survivors.report_ids()
            counts = survivors.counts()
        finally:
            survivors.close()
        missing = [a["id"] for a in acked if a["id"] not in stored]
        assert not missing, f"{len(missing)} acknowledged reports lost: {missing[:5]}"
        worked = sum(s for c in counts.values() for (k, _), (s, f) in c.targets.items())
        assert worked >= sum(1 for a in acked if a["worked"])
    finally:
        store.close()
        cleanup()


def test_counts_read_for_a_match_are_fresh_within_a_second_and_at_once_for_own_reports(env, monkeypatch):
    """/match reads the report counts of the entries it answers through a memo: a report stored by this
    process counts on its next read; one stored by another replica (another store on the database) once
    the memo's second is over, never later."""
    import faultline.store.written as written

    reader = WrittenStore.open(env["target"])  # the process that serves /match
    other = WrittenStore.open(env["target"])  # another replica
    try:
        entry = "pytorch/cuda-out-of-memory"
        before = (reader.counts_or_none([entry]) or {}).get(entry)
        n0 = before.fixed if before else 0
        tok_other = other.create_token("report", "other-replica")[0].id
        other.add_report(tok_other, entry, "workaround", "w0", 0, True)
        clock = [written.time.monotonic()]
        monkeypatch.setattr(written.time, "monotonic", lambda: clock[0])
        assert ((reader.counts_or_none([entry]) or {}).get(entry) or written.Counts()).fixed == n0  # within the second
        clock[0] += written.COUNTS_FRESH_S + 0.01
        assert reader.counts_or_none([entry])[entry].fixed == n0 + 1
        tok_own = reader.create_token("report", "own")[0].id
        reader.add_report(tok_own, entry, "workaround", "w0", 0, True)  # no time passes: counted at once
        assert reader.counts_or_none([entry])[entry].fixed == n0 + 2
    finally:
        reader.close()
        other.close()
