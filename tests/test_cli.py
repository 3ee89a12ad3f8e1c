"""The `faultline` command, run as a real process."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.conftest import KB, REPO, SEED_LINE


def faultline(*args: str, input: bytes | None = None, env: dict | None = None, cwd: Path | None = None):
    return subprocess.run([sys.executable, "-m", "app.cli", "--kb", str(KB), *args], input=input,
                          capture_output=True, cwd=cwd or REPO, env={**os.environ, **(env or {})}, timeout=300)


def test_load_then_match_human_and_json(tmp_path):
    db = tmp_path / "a.db"
    r = faultline("load", "--db", str(db))
    assert r.returncode == 0, r.stderr.decode()
    assert db.is_file()
    r = faultline("match", "--db", str(db), "-", input=SEED_LINE.encode())
    out = r.stdout.decode()
    assert r.returncode == 0 and "pytorch/nccl-timeout-allreduce" in out and "%" in out
    r = faultline("match", "--db", str(db), "--json", "-", input=SEED_LINE.encode())
    assert json.loads(r.stdout)["matches"][0]["id"] == "pytorch/nccl-timeout-allreduce"
    log = tmp_path / "train.log"
    log.write_bytes(b"\xff\xfe junk\n" + SEED_LINE.encode())
    r = faultline("match", "--db", str(db), "--lang", "zh", str(log))
    assert r.returncode == 0 and "置信度" in r.stdout.decode()


def test_match_reports_no_match_and_empty_input(tmp_path):
    db = tmp_path / "a.db"
    faultline("load", "--db", str(db))
    r = faultline("match", "--db", str(db), "-", input=b"fatal: not a git repository (or any of the parent directories): .git\n")
    assert r.returncode == 3 and "No known error matched" in r.stdout.decode()
    r = faultline("match", "--db", str(db), "-", input=b"  \n")
    assert r.returncode == 2 and "empty" in r.stderr.decode()


def test_db_from_environment_variable(tmp_path):
    db = tmp_path / "env.db"
    r = faultline("load", env={"FAULTLINE_DB": str(db)})
    assert r.returncode == 0 and db.is_file()


def test_load_failure_is_reported_and_exit_code_nonzero(kb_copy, tmp_path):
    (kb_copy / "entries" / "pytorch" / "bad.yaml").write_text("id: pytorch/bad\n")
    r = subprocess.run([sys.executable, "-m", "app.cli", "--kb", str(kb_copy), "load", "--db", str(tmp_path / "b.db")],
                       capture_output=True, cwd=REPO, timeout=120)
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "NOT loaded" in err and "entries/pytorch/bad.yaml" in err and "title" in err


def test_export_writes_json_and_markdown(tmp_path):
    db = tmp_path / "a.db"
    faultline("load", "--db", str(db))
    for fmt, lang in (("json", "en"), ("md", "zh")):
        out = tmp_path / f"out-{fmt}"
        r = faultline("export", "--db", str(db), "--format", fmt, "--lang", lang, "--out", str(out))
        assert r.returncode == 0, r.stderr.decode()
        f = out / "errors" / "pytorch" / f"nccl-timeout-allreduce.{fmt}"
        assert f.is_file()
        text = f.read_text()
        if fmt == "json":
            assert json.loads(text)["lang"] == "en"
        else:
            assert "## 根本原因" in text
        assert (out / "guides" / f"distributed-hangs.{fmt}").is_file()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_runs_the_real_service_over_http(tmp_path):
    """What the container's start command does: serve a database over HTTP."""
    db = tmp_path / "srv.db"
    faultline("load", "--db", str(db))
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "--kb", str(KB), "serve", "--db", str(db),
                             "--host", "127.0.0.1", "--port", str(port)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        r = httpx.post(f"{base}/match", content=SEED_LINE.encode(), headers={"Content-Type": "text/plain"}, timeout=10)
        assert r.json()["matches"][0]["id"] == "pytorch/nccl-timeout-allreduce"
        r = httpx.get(f"{base}/errors/pytorch/nccl-timeout-allreduce", headers={"Accept-Language": "zh-CN"})
        assert r.headers["content-language"] == "zh"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
