"""The inbox of unknown errors over HTTP, on SQLite and PostgreSQL: off unless FAULTLINE_INBOX=1,
grouped by fingerprint with counts, nothing private ever stored, GET /inbox for curators only,
`faultline inbox`, and the fields a new entry's scaffold can start from."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml
import sqlalchemy as sa
from fastapi.testclient import TestClient

from faultline.inbox import fingerprint, from_inbox, sample_of, scaffold_fields, scrub
from faultline.main import create_app
from faultline.store.db import engine_for
from faultline.store.written import WrittenStore
from tests.conftest import SEED_LINE
from tests.written_backends import BACKENDS, KB, REPO, make_target

PRIVATE = ["/home/alice", "alice", "gpu-node17.corp.example.com", "10.20.30.40", "alice.smith@example.com",
           "hf_AbCdEfGhIjKlMnOpQrStUvWx123456", "sk-proj-abcdefghijklmnop1234", "AKIAIOSFODNN7EXAMPLE",
           "hunter2", "C:\\Users\\Bob", "fe80::1ff:fe23:4567:890a", "ghp_0123456789abcdefghijABCDEFGHIJ012345"]


def unknown_paste(i: int) -> str:
    """The same unknown error as three people would paste it, each with their own private details."""
    users = ["alice", "bob", "carol"]
    return (
        "Traceback (most recent call last):\n"
        f'  File "/home/{users[i]}/proj/train.py", line {10 + i}, in <module>\n'
        "    main()\n"
        f"FrobnicatorError: shard {i * 7} of /home/{users[i]}/data/train-{i}.bin unreadable on "
        f"gpu-node17.corp.example.com (10.20.30.{40 + i}) for alice.smith@example.com "
        f"with token=hf_AbCdEfGhIjKlMnOpQrStUvWx12345{i} password=hunter2\n"
    )


@pytest.fixture(scope="module", params=BACKENDS)
def env(request, tmp_path_factory):
    target, cleanup = make_target(request.param, tmp_path_factory.mktemp(request.param))
    store = WrittenStore.open(target)
    app = create_app(db_path=target, kb_root=str(KB))
    with TestClient(app) as c:
        yield {"client": c, "store": store, "target": target,
               "curate": store.create_token("curate", "curator")[1], "report": store.create_token("report")[1]}
    store.close()
    cleanup()


def inbox(env, tok=None):
    tok = tok or env["curate"]
    return env["client"].get("/inbox", headers={"Authorization": f"Bearer {tok}"})


def test_off_unless_the_operator_turns_it_on(env, monkeypatch):
    monkeypatch.delenv("FAULTLINE_INBOX", raising=False)
    assert env["client"].post("/match", json={"text": unknown_paste(0)}).json()["matches"] == []
    body = inbox(env).json()
    assert body["enabled"] is False and body["groups"] == []


def test_unknown_pastes_are_grouped_and_scrubbed(env, monkeypatch):
    monkeypatch.setenv("FAULTLINE_INBOX", "1")
    c = env["client"]
    for i in range(3):
        assert c.post("/match", json={"text": unknown_paste(i)}).json()["matches"] == []
    other = 'Traceback (most recent call last):\n  File "x.py", line 1\nWidgetError: the widget at /srv/w/1 broke\n'
    c.post("/match", content=other.encode(), headers={"Content-Type": "text/plain"})
    c.post("/match", json={"text": SEED_LINE})  # known: never recorded
    groups = inbox(env).json()["groups"]
    assert [g["count"] for g in groups[:2]] == [3, 1]
    top = groups[0]
    assert top["sample"].startswith("FrobnicatorError: shard <n> of <path> unreadable on <host>")
    assert top["first_seen"] <= top["last_seen"]
    assert groups[1]["sample"] == "WidgetError: the widget at <path> broke"
    assert not any("nccl" in g["sample"].lower() for g in groups)
    # nothing private anywhere in the table, whatever the API shows
    eng = engine_for(env["target"])
    with eng.connect() as conn:
        stored = json.dumps([list(r) for r in conn.execute(sa.text("select * from inbox_group"))])
    eng.dispose()
    for secret in PRIVATE + ["bob", "carol", "train.py", "30.41"]:
        assert secret not in stored, secret


def test_inbox_needs_a_curate_token(env):
    r = env["client"].get("/inbox")
    assert r.status_code == 401 and r.json()["error"]["status"] == 401
    assert inbox(env, "flt_unknown-token-unknown-token").status_code == 401
    r = inbox(env, env["report"])
    assert r.status_code == 403 and r.json()["error"]["code"] == "insufficient_scope"


def test_cli_lists_groups_by_count_and_scaffold_fields(env):
    out = subprocess.run([sys.executable, "-m", "faultline.cli", "inbox", "--db", env["target"]], cwd=REPO,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    lines = [ln for ln in out.stdout.splitlines()[1:] if ln.strip()]
    counts = [int(ln.split()[0]) for ln in lines]
    assert counts == sorted(counts, reverse=True) and counts[0] == 3
    assert "FrobnicatorError" in lines[0]
    fp = lines[0].split()[1]
    fields = scaffold_fields(env["store"], fp)
    assert from_inbox(env["target"], fp) == fields
    assert fields["seen"] == 3 and fields["sample"].startswith("FrobnicatorError")
    assert fields["error_text"].startswith("TODO(") and fields["inbox"]["fingerprint"] == fp
    assert scaffold_fields(env["store"], "0" * 16) is None


def test_new_from_inbox_starts_an_entry_that_lint_refuses_until_filled(env, tmp_path):
    kb = tmp_path / "kb"
    (kb / "entries").mkdir(parents=True)
    fp = inbox(env).json()["groups"][0]["fingerprint"]
    run = lambda *a: subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(kb), *a], cwd=REPO,  # noqa: E731
                                    capture_output=True, text=True, timeout=120,
                                    env={**os.environ, "PYTHONPATH": str(REPO)})
    miss = run("new", "mylib/frobnicator-shard-unreadable", "--from-inbox", "0" * 16, "--db", env["target"])
    assert miss.returncode == 2 and "no group" in miss.stderr
    assert not (kb / "entries" / "mylib").exists()
    out = run("new", "mylib/frobnicator-shard-unreadable", "--from-inbox", fp, "--db", env["target"])
    assert out.returncode == 0, out.stderr
    assert fp in out.stdout and "seen 3 time(s)" in out.stdout
    text = (kb / "entries" / "mylib" / "frobnicator-shard-unreadable.yaml").read_text()
    doc = yaml.safe_load(text)
    # the masked sample is offered in the placeholders, never as a finished value
    assert doc["error_text"].startswith("TODO(error_text)") and "FrobnicatorError" in doc["error_text"]
    assert doc["signatures"][0]["examples"][0].startswith("TODO(example)")
    assert "FrobnicatorError" in doc["signatures"][0]["examples"][0]
    assert f"inbox group {fp}" in text and "pasted 3 time(s)" in text
    for secret in PRIVATE:
        assert secret not in text, secret
    lint = run("lint")
    assert lint.returncode != 0 and "[error_text]: still holds a placeholder" in lint.stdout


@pytest.mark.parametrize("line,secret", [
    ("OSError: cannot open /home/alice/data/x.bin", "alice"),
    ("OSError: cannot open ~/secrets/key.pem", "secrets"),
    ("OSError: C:\\Users\\Bob\\train\\cfg.yaml missing", "Bob"),
    ("ConnectionError: 192.168.1.20:29500 refused", "192.168"),
    ("ConnectionError: [2001:db8:85a3::8a2e:370:7334]:29500 refused", "8a2e"),
    ("ConnectionError: gpu-node17.cluster.internal:29500 refused", "gpu-node17"),
    ("DistNetworkError: host ip-10-0-3-7 unreachable", "10-0-3-7"),
    ("PermissionError: user alice may not write", "alice"),
    ("PermissionError: ssh alice@headnode failed", "headnode"),
    ("ValueError: contact ml-team+oncall@example.org", "oncall"),
    ("HTTPError: 401 for https://hf.co/api?token=abc123secret", "abc123secret"),
    ("HTTPError: 401 with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz", "eyJhbGci"),
    ("ValueError: HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345 invalid", "hf_aBcD"),
    ("ValueError: OPENAI_API_KEY sk-abcdefghijklmnopqrstuvwx invalid", "sk-abcdef"),
    ("ValueError: AWS key AKIAIOSFODNN7EXAMPLE rejected", "AKIAIOSFODNN7EXAMPLE"),
    ("ValueError: api_key='Zx9Qw8Er7Ty6Ui5Op4' rejected", "Zx9Qw8Er7Ty6Ui5Op4"),
    ("RuntimeError: wandb login failed for 0123456789abcdef0123456789abcdef01234567", "0123456789abcdef"),
    ("RuntimeError: password: hunter2 rejected", "hunter2"),
])
def test_private_strings_never_survive(line, secret):
    s = sample_of(line)
    assert secret not in s, s
    assert s.split(":")[0] == line.split(":")[0]  # the exception type stays, for the curator


def test_same_error_same_fingerprint_and_library_locations_kept():
    a = sample_of("[rank3]: FooError: step 12 failed on /home/a/x.py at 10.0.0.1")
    b = sample_of("[rank0]: FooError: step 981 failed on /home/b/y.py at 10.0.0.9")
    assert a == b and fingerprint(a) == fingerprint(b)
    assert fingerprint(a) != fingerprint(sample_of("BarError: step 12 failed"))
    assert "socket.cpp" in scrub("[W socket.cpp:663] [c10d] The client socket has failed to connect")


def test_groups_survive_a_reload_of_kb(env):
    from faultline.store.load import load_into_db

    before = inbox(env).json()["groups"]
    assert before, "the earlier tests left groups behind"
    load_into_db(KB, env["target"])
    assert inbox(env).json()["groups"] == before
