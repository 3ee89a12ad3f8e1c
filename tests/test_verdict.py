"""The verdict on a log's root cause: who must act (blame) and whether a retry as is can help (retry).

Over HTTP on the real app (/match, /errors/{id}, the pages, OpenAPI), the CLI as real processes, the
MCP tools over stdio, `faultline run --retry-transient` with real commands, and lint."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest
import yaml
from markupsafe import escape
from mcp import Client

from fastapi.testclient import TestClient

from faultline.kbfiles import examples, load_kb
from faultline.lint import lint
from faultline.main import create_app
from faultline.store.written import WrittenStore
from tests.conftest import KB, REPO
from tests.test_mcp import call, stdio
from tests.written_backends import BACKENDS, make_target

ECC_ID = "pytorch/cuda-ecc-error"  # the KB says: hardware, transient (a rerun on a healthy GPU)
ECC_LINE = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
OOM_ID = "pytorch/cuda-out-of-memory"
OOM_LOG = KB / "examples" / "pytorch" / "cuda-out-of-memory" / "ddp-8gpu-rank3-oom-then-watchdog-timeouts.composed.log"


def entry_yaml(entry_id: str) -> dict:
    return yaml.safe_load((KB / "entries" / f"{entry_id}.yaml").read_text(encoding="utf-8"))


def traceback(*frames: tuple[str, int, str, str], last: str) -> str:
    out = ["Traceback (most recent call last):"]
    for file, line, fn, code in frames:
        out += [f'  File "{file}", line {line}, in {fn}', f"    {code}"]
    return "\n".join(out + [last]) + "\n"


USER_CODE = traceback(("/home/ana/proj/train.py", 40, "<module>", "main(cfg)"),
                      ("/home/ana/proj/train.py", 31, "main", "check(cfg)"),
                      ("/home/ana/proj/train.py", 12, "check", "raise ValueError(f'bad warmup {w}')"),
                      last="ValueError: bad warmup -3 for schedule cosine_restarts_custom")
PACKAGE_CALL = traceback(("/home/ana/proj/train.py", 40, "<module>", "model = build(cfg)"),
                         ("/opt/venv/lib/python3.11/site-packages/zorblib/layers.py", 88, "build", "raise TypeError(msg)"),
                         last="TypeError: zorblib.build() got an unexpected keyword 'widthh'")
PACKAGE_INNER = traceback(("/opt/venv/lib/python3.11/site-packages/zorblib/__main__.py", 5, "<module>", "run()"),
                          ("/opt/venv/lib/python3.11/site-packages/zorblib/engine.py", 301, "run", "self._step()"),
                          last="RuntimeError: zorblib engine reached an inconsistent scheduler state 0x3f")
MISSING_MODULE = traceback(("/home/ana/proj/train.py", 3, "<module>", "import zorblib_extras"),
                           last="ModuleNotFoundError: No module named 'zorblib_extras'")


def post(client, text: str, lang: str = "en") -> dict:
    r = client.post("/match", json={"text": text, "lang": lang})
    assert r.status_code == 200, r.text
    return r.json()


# ----------------------------------------------------------------------------- /match JSON


def test_known_root_gets_its_entrys_verdict_in_both_languages(client):
    doc = entry_yaml(ECC_ID)
    en = post(client, f"step 310 loss 1.92\n{ECC_LINE}\n")
    assert en["root_cause"]["entry"] == ECC_ID
    v = en["verdict"]
    assert v["source"] == "entry" and v["entry"] == ECC_ID and v["origin"] is None
    assert v["blame"]["kind"] == doc["blame"]["kind"] and v["retry"]["kind"] == doc["retry"]["kind"] == "transient"
    assert v["blame"]["reason"] == " ".join(doc["blame"]["reason"]["en"].split())
    assert v["retry"]["reason"] == " ".join(doc["retry"]["reason"]["en"].split())
    assert v["blame"]["code"] == "entry" and v["blame"]["label"] == "the hardware"
    assert v["confidence"] == en["matches"][0]["confidence"]  # as sure as the match of the entry
    zh = post(client, f"step 310 loss 1.92\n{ECC_LINE}\n", lang="zh")["verdict"]
    assert zh["blame"]["kind"] == v["blame"]["kind"] and zh["retry"]["kind"] == "transient"
    assert zh["blame"]["label"] == "硬件" and zh["retry"]["label"].startswith("暂时性")
    assert zh["retry"]["reason"] == doc["retry"]["reason"]["zh"].replace("\n", "")


def test_every_entrys_own_example_log_carries_its_verdict(client):
    """For every example log whose root cause its entry explains, the verdict is that entry's."""
    kb = {e.id: e for e in load_kb(KB).entries}
    seen: set[str] = set()
    for ex in examples(KB):
        if ex.entry_id is None or ex.entry_id in seen:
            continue
        res = post(client, ex.read())
        rc = res["root_cause"]
        if not rc or rc["entry"] != ex.entry_id:
            continue
        seen.add(ex.entry_id)
        e, v = kb[ex.entry_id], res["verdict"]
        assert v and v["source"] == "entry", ex.path
        assert (v["blame"]["kind"], v["retry"]["kind"]) == (e.blame.kind, e.retry.kind), ex.path
    assert len(seen) > 150  # nearly every entry is the root of one of its own logs


def test_unknown_error_raised_in_user_code(client):
    res = post(client, USER_CODE)
    assert res["root_cause"]["entry"] is None and res["matches"] == []
    v = res["verdict"]
    assert v["source"] == "derived" and v["origin"] == "user_code" and v["entry"] is None
    assert (v["blame"]["kind"], v["retry"]["kind"]) == ("user_code", "after_change")
    assert v["blame"]["code"] == "raised_in_user_code" and v["blame"]["params"]["line"] == 12
    assert "/home/ana/proj/train.py, line 12" in v["blame"]["reason"]
    assert 0 < v["confidence"] < 1
    zh = post(client, USER_CODE, "zh")["verdict"]
    assert zh["blame"]["label"] == "你的代码" and "你的代码中抛出" in zh["blame"]["reason"] and "第 12 行" in zh["blame"]["reason"]
    assert zh["retry"]["label"] == "修复之后才能重试"


def test_unknown_error_inside_a_package_names_the_package(client):
    called = post(client, PACKAGE_CALL, "en")["verdict"]  # the user's call passed what the package refuses
    assert called["origin"] == "package" and called["package"] == "zorblib"
    assert called["blame"]["kind"] == "user_code" and called["blame"]["code"] == "raised_in_package_from_user_call"
    assert "zorblib" in called["blame"]["reason"] and "train.py, line 40" in called["blame"]["reason"]
    inner = post(client, PACKAGE_INNER, "zh")["verdict"]  # nothing of the user's in the stack
    assert inner["origin"] == "package" and inner["package"] == "zorblib"
    assert (inner["blame"]["kind"], inner["retry"]["kind"]) == ("library_version", "after_change")
    assert "包 zorblib 内部" in inner["blame"]["reason"]
    assert inner["confidence"] < called["confidence"]


def test_unknown_error_whose_type_says_who_acts(client):
    v = post(client, MISSING_MODULE)["verdict"]
    assert (v["origin"], v["blame"]["kind"], v["retry"]["kind"]) == ("exception", "installation", "after_change")
    assert "ModuleNotFoundError" in v["blame"]["reason"]
    v = post(client, traceback(("/home/ana/proj/fetch.py", 9, "get", "sock.recv(4096)"),
                               last="ConnectionResetError: [Errno 104] Connection reset by peer"))["verdict"]
    assert (v["blame"]["kind"], v["retry"]["kind"]) == ("network", "transient")


SIGNAL_LOGS = {  # the shell's words for a child ended by a signal, at the end of the output
    "SIGFPE": ("library_version", "Floating point exception (core dumped)"),
    "SIGILL": ("installation", "Illegal instruction (core dumped)"),
    "SIGSEGV": ("library_version", "Segmentation fault (core dumped)"),
    "SIGBUS": ("environment", "./train.sh: line 30: 294291 Bus error   (core dumped) python train.py"),
}


def test_a_signal_gets_the_entry_verdict_or_a_derived_one_over_http(client):
    """Over HTTP, on the whole KB: an entry that knows the signal answers; else the signal itself does."""
    for sig, (blame, line) in SIGNAL_LOGS.items():
        res = post(client, "".join(f"step {i} loss 0.{i}\n" for i in range(20)) + line + "\n")
        v, rc = res["verdict"], res["root_cause"] or {}
        if rc.get("entry"):
            doc = entry_yaml(rc["entry"])
            assert v["source"] == "entry" and (v["blame"]["kind"], v["retry"]["kind"]) == (
                doc["blame"]["kind"], doc["retry"]["kind"]), sig
        else:
            assert v["source"] == "derived" and v["origin"] == "signal" and v["signal"] == sig, sig
            assert v["blame"]["kind"] == blame and sig in v["blame"]["reason"], sig


def test_a_signal_no_entry_knows_gets_a_derived_verdict():
    """The real matcher on real entries that know no signal (the Hugging Face Hub's): the signal decides."""
    from faultline.matching.index import MatchIndex
    from faultline.render.match import match_text

    index = MatchIndex.build([e for e in load_kb(KB).entries if e.id.startswith("huggingface-hub/")])
    for sig, (blame, line) in SIGNAL_LOGS.items():
        res = match_text(index, "step 1 loss 2.0\n" + line + "\n", lang="zh")
        v = res["verdict"]
        assert res["matches"] == [] and v["source"] == "derived" and v["origin"] == "signal", sig
        assert v["signal"] == sig and v["blame"]["kind"] == blame and v["retry"]["kind"] == "after_change", sig
        assert sig in v["blame"]["reason"] and v["retry"]["label"] == "修复之后才能重试", sig
    v = match_text(index, "step 9\nsubprocess.CalledProcessError: Command '['python', 'train.py']' returned "
                          "non-zero exit status -15.\n")["verdict"]
    assert (v["signal"], v["blame"]["kind"], v["retry"]["kind"]) == ("SIGTERM", "scheduler", "transient")
    v = match_text(index, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n")["verdict"]
    assert (v["origin"], v["blame"]["kind"], v["retry"]["kind"]) == ("hardware", "hardware", "transient")


def test_nothing_to_go_on_gives_no_verdict(client):
    res = post(client, "epoch 3 finished\nall good here, nothing failed\n")
    assert res["root_cause"] is None and res["verdict"] is None
    # stopped by the user: raised in the user's code, but nobody's fault there
    res = post(client, traceback(("/home/ana/proj/train.py", 40, "<module>", "main(cfg)"),
                                 ("/home/ana/proj/train.py", 22, "main", "time.sleep(1)"), last="KeyboardInterrupt"))
    assert res["verdict"] is None


def test_openapi_declares_the_verdict(client):
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    verdict = schemas["MatchResponse"]["properties"]["verdict"]
    assert "VerdictOut" in json.dumps(verdict)
    v = schemas["VerdictOut"]["properties"]
    blame = schemas[v["blame"]["$ref"].rsplit("/", 1)[-1]]["properties"]["kind"]
    retry = schemas[v["retry"]["$ref"].rsplit("/", 1)[-1]]["properties"]["kind"]
    assert set(blame["enum"]) == {"user_code", "configuration", "library_version", "installation", "environment",
                                  "hardware", "network", "scheduler"}
    assert set(retry["enum"]) == {"transient", "after_change", "never_as_is"}
    assert set(v["source"]["enum"]) == {"entry", "derived"}


def test_entry_json_carries_blame_and_retry(client):
    doc = entry_yaml(OOM_ID)
    e = client.get(f"/errors/{OOM_ID}", headers={"Accept": "application/json"}, params={"lang": "zh"}).json()
    assert e["blame"]["kind"] == doc["blame"]["kind"] and e["retry"]["kind"] == doc["retry"]["kind"]
    assert e["retry"]["reason"] == doc["retry"]["reason"]["zh"].replace("\n", "")
    md = client.get(f"/errors/{OOM_ID}.md?lang=zh").text  # the Markdown export says it too
    assert f"- **是否重试:** {e['retry']['label']} — {e['retry']['reason']}" in md


# ----------------------------------------------------------------------------- pages


def test_result_and_entry_pages_show_the_verdict(client):
    doc = entry_yaml(ECC_ID)
    r = client.post("/results?lang=zh", files={"text": (None, ECC_LINE)})
    assert r.status_code == 200 and 'id="verdict"' in r.text
    assert "由谁处理" in r.text and "硬件" in r.text and str(escape(doc["retry"]["reason"]["zh"].replace("\n", ""))) in r.text
    page = client.get(f"/errors/{OOM_ID}?lang=en", headers={"Accept": "text/html"}).text
    assert 'id="h-verdict"' in page and "Who must act" in page
    assert str(escape(" ".join(entry_yaml(OOM_ID)["blame"]["reason"]["en"].split()))) in page


# ----------------------------------------------------------------------------- CLI


def faultline(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), *args], input=input,
                          capture_output=True, cwd=REPO, timeout=180)


def test_cli_match_shows_the_verdict_in_every_format(kb_db, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(USER_CODE)
    r = faultline("match", "--db", str(kb_db), "--format", "json", str(log))
    assert r.returncode == 3  # no entry matched
    v = json.loads(r.stdout)["verdict"]
    assert v["origin"] == "user_code" and v["blame"]["kind"] == "user_code"
    r = faultline("match", "--db", str(kb_db), "--lang", "zh", str(log))
    out = r.stdout.decode()
    assert "由谁处理：你的代码" in out and "是否重试：修复之后才能重试" in out and "由日志推断" in out
    r = faultline("match", "--db", str(kb_db), "--format", "md", "-", input=(ECC_LINE + "\n").encode())
    out = r.stdout.decode()
    assert r.returncode == 0 and "- Who must act: the hardware" in out and "- Retry: transient: retry as is" in out
    assert "from the entry" in out


# ----------------------------------------------------------------------------- MCP


def test_mcp_tools_show_the_verdict(kb_db):
    doc = entry_yaml(ECC_ID)

    async def go():
        async with Client(stdio(kb_db)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            res = await call(c, tools, "match_log", {"text": ECC_LINE, "lang": "zh"})
            v = res["verdict"]
            assert v["blame"] == doc["blame"]["kind"] and v["retry"] == "transient" and v["source"] == "entry"
            assert v["retry_text"].startswith("暂时性") and doc["retry"]["reason"]["zh"].replace("\n", "") in v["retry_text"]
            res = await call(c, tools, "match_log", {"text": PACKAGE_INNER})
            assert res["verdict"]["source"] == "derived" and res["verdict"]["origin"] == "package"
            assert "zorblib" in res["verdict"]["blame_text"]
            entry = await call(c, tools, "get_entry", {"entry_id": OOM_ID})
            assert entry["retry"].startswith(entry_yaml(OOM_ID)["retry"]["kind"] + ": ")
            assert entry["blame"].startswith(entry_yaml(OOM_ID)["blame"]["kind"] + ": ")

    anyio.run(go)


# ----------------------------------------------------------------------------- faultline run --retry-transient


def run(db: Path, *command: str, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(db), *extra, "--",
                           *command], capture_output=True, cwd=REPO, timeout=180)


def flaky(tmp_path: Path, fails: int, message: str, code: int = 1) -> tuple[tuple[str, ...], Path]:
    """A command that fails ``fails`` times printing ``message`` to stderr, then succeeds; it counts its runs."""
    counter = tmp_path / "runs"
    script = textwrap.dedent(f"""
        import pathlib, sys
        p = pathlib.Path({str(counter)!r})
        n = int(p.read_text()) + 1 if p.exists() else 1
        p.write_text(str(n))
        print(f"run {{n}} starting", flush=True)
        if n <= {fails}:
            sys.stderr.write({message!r})
            sys.exit({code})
        print("training finished")
    """)
    return (sys.executable, "-c", script), counter


def test_retry_transient_reruns_a_flaky_command_until_it_works(kb_db, tmp_path):
    cmd, counter = flaky(tmp_path, 1, f"step 12 loss 2.1\n[rank0]: {ECC_LINE}\n", code=1)
    r = run(kb_db, *cmd, extra=("--retry-transient", "3", "--retry-delay", "0"))
    assert r.returncode == 0 and counter.read_text() == "2"
    assert r.stdout.decode() == "run 1 starting\nrun 2 starting\ntraining finished\n"
    err = r.stderr.decode()
    assert f"[{ECC_ID}]" in err and "Retry: transient: retry as is" in err
    assert "faultline: the failure is transient: running it again (attempt 2 of 4)" in err
    assert "faultline: the retry worked: the command succeeded on attempt 2 of 4" in err


def test_retry_transient_gives_up_with_the_commands_own_code(kb_db, tmp_path):
    cmd, counter = flaky(tmp_path, 5, f"{ECC_LINE}\n", code=3)
    r = run(kb_db, *cmd, extra=("--retry-transient", "2", "--retry-delay", "0", "--lang", "zh"))
    assert r.returncode == 3 and counter.read_text() == "3"  # one run and two reruns
    err = r.stderr.decode()
    assert err.count("这是暂时性故障：重新运行") == 2 and "要求的 2 次重试已经用完" in err


def test_a_failure_that_is_not_transient_is_not_rerun(kb_db, tmp_path):
    cmd, counter = flaky(tmp_path, 1, OOM_LOG.read_text(), code=1)
    r = run(kb_db, *cmd, extra=("--retry-transient", "3", "--retry-delay", "0"))
    assert r.returncode == 1 and counter.read_text() == "1"
    err = r.stderr.decode()
    assert f"[{OOM_ID}]" in err and "is transient: running it again" not in err
    assert "not running it again: the verdict is not transient (retry only after the fix)" in err


def test_without_the_option_nothing_is_rerun(kb_db, tmp_path):
    cmd, counter = flaky(tmp_path, 1, f"{ECC_LINE}\n")
    r = run(kb_db, *cmd)
    assert r.returncode == 1 and counter.read_text() == "1" and "running it again" not in r.stderr.decode()
    assert "Retry: transient: retry as is" in r.stderr.decode()  # the verdict is still said


def test_retry_options_refuse_bad_values(kb_db):
    for bad in (("--retry-transient", "-1"), ("--retry-transient", "two"), ("--retry-delay", "-5"),
                ("--retry-delay", "inf")):
        r = run(kb_db, sys.executable, "-c", "pass", extra=bad)
        assert r.returncode == 2 and b"Traceback" not in r.stderr, bad


# ----------------------------------------------------------------------------- lint


def test_lint_refuses_an_entry_without_blame_or_retry(tmp_path):
    """A knowledge base of two real entries, one without blame and one without retry."""
    for eid, drop in ((ECC_ID, "blame"), (OOM_ID, "retry")):
        doc = entry_yaml(eid)
        del doc[drop]
        path = tmp_path / "entries" / f"{eid}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    shutil.copytree(KB / "guides", tmp_path / "guides")
    rep = lint(tmp_path)
    missing = [e for e in rep.errors if "]: missing: " in e]
    assert len(missing) == 2, rep.errors
    assert any("pytorch/cuda-ecc-error.yaml [blame]: missing: who must act" in e for e in missing), missing
    assert any("pytorch/cuda-out-of-memory.yaml [retry]: missing: whether a retry" in e for e in missing), missing
    rep = lint(tmp_path, strict=False)  # drafting: said, not refused
    assert not [e for e in rep.errors if "]: missing: " in e] and len([w for w in rep.warnings if "]: missing: " in w]) == 2


# ----------------------------------------------------------------------------- outcome reports


@pytest.fixture(scope="module", params=BACKENDS)
def reports(request, tmp_path_factory):
    """The real app on a database of its own (SQLite, then PostgreSQL), and a report token."""
    target, cleanup = make_target(request.param, tmp_path_factory.mktemp(request.param))
    store = WrittenStore.open(target)
    tok = store.create_token("report", "verdict-test")[1]
    with TestClient(create_app(db_path=target, kb_root=str(KB))) as c:
        yield c, {"Authorization": f"Bearer {tok}"}, store
    store.close()
    cleanup()


def test_a_report_on_a_transient_failure_says_whether_the_retry_worked(reports):
    c, auth, store = reports
    r = c.post(f"/errors/{ECC_ID}/outcomes", json={"workaround": 1, "worked": True, "retried": True,
                                                   "retry_worked": False}, headers=auth)
    assert r.status_code == 201, r.text
    rep = r.json()
    assert rep["retried"] is True and rep["retry_worked"] is False
    assert store.counts_for(ECC_ID).retried == 1 and store.counts_for(ECC_ID).retry_worked == 0
    # the same reporter again on the other workaround: the retry worked this time; one reporter, counted once
    r = c.post(f"/errors/{ECC_ID}/outcomes", json={"workaround": 2, "worked": False, "retried": True,
                                                   "retry_worked": True}, headers=auth)
    assert r.status_code == 201 and r.json()["retry_worked"] is True
    view = c.get(f"/errors/{ECC_ID}.json").json()
    assert view["retry_reports"] == {"retried": 1, "worked": 1}
    page = c.get(f"/errors/{ECC_ID}?lang=zh", headers={"Accept": "text/html"}).text
    assert "1 份结果报告说曾原样重试；其中 1 份重试成功。" in page
    page = c.get(f"/errors/{ECC_ID}?lang=en", headers={"Accept": "text/html"}).text
    assert "1 outcome report says the failure was retried as is; for 1 the retry worked." in page
    # a report that says nothing of a retry leaves both unknown, and counts for none
    r = c.post(f"/errors/{OOM_ID}/outcomes", json={"workaround": 1, "worked": True}, headers=auth)
    assert r.status_code == 201 and "retried" not in r.json() and "retry_worked" not in r.json()
    assert c.get(f"/errors/{OOM_ID}.json").json()["retry_reports"] == {"retried": 0, "worked": 0}


@pytest.mark.parametrize("body", [
    {"workaround": 1, "worked": True, "retry_worked": True},  # how a retry went, but no retry
    {"workaround": 1, "worked": True, "retried": False, "retry_worked": True},
    {"workaround": 1, "worked": True, "retried": "yes"},
    {"workaround": 1, "worked": True, "retried": None},
])
def test_bad_retry_fields_are_422(reports, body):
    c, auth, _ = reports
    r = c.post(f"/errors/{ECC_ID}/outcomes", json=body, headers=auth)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text


def test_a_database_from_before_keeps_its_reports_through_the_migration(tmp_path):
    from alembic import command
    from alembic.config import Config

    from faultline.store.db import ROOT, engine_for

    db = tmp_path / "old.db"
    engine = engine_for(db)
    cfg = Config(str(ROOT / "alembic.ini"))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "7b1e4c9a2f10")  # the schema before reports said anything of retries
        conn.exec_driver_sql("INSERT INTO api_token (id, name, scope, token_hash, hint, created) "
                             "VALUES (1, 'old', 'report', 'h', 'flt_', 0)")
        conn.exec_driver_sql("INSERT INTO outcome_report (token_id, entry_id, target_kind, target_key, "
                             f"target_index, worked, created) VALUES (1, '{ECC_ID}', 'workaround', 'wa-x', 1, 1, 0)")
    engine.dispose()
    store = WrittenStore.open(db)  # brings the schema to head
    try:
        c = store.counts_for(ECC_ID)
        assert c.of("workaround", "wa-x") == (1, 0) and c.retried == 0
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT retried, retry_worked FROM outcome_report").all() == [(None, None)]
    finally:
        store.close()
