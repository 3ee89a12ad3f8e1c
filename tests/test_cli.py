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
import pytest

from tests.conftest import KB, REPO, SEED_LINE


def faultline(*args: str, input: bytes | None = None, env: dict | None = None, cwd: Path | None = None):
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), *args], input=input,
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
    r = subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(kb_copy), "load", "--db", str(tmp_path / "b.db")],
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
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "serve", "--db", str(db),
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


# --- usage mistakes: one line on stderr, exit code 2, never a traceback ---------------------------

@pytest.fixture(scope="module")
def own_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("cli") / "a.db"
    assert faultline("load", "--db", str(db)).returncode == 0
    return db


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """The `faultline` command's main() in this process (the exit code, stdout, stderr)."""
    from faultline.cli import main

    try:
        code = main(["--kb", str(KB), *args])
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(got, *needles: str) -> str:
    code, _, err = got
    assert code == 2, (code, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for n in needles:
        assert n in err, err
    return err


def test_unreadable_inputs_and_outputs_give_one_line_and_exit_2(own_db, tmp_path, capsys):
    log = tmp_path / "train.log"
    log.write_text(SEED_LINE + "\n")
    made = tmp_path / "made.md"
    made.write_text("an earlier export\n")
    db = str(own_db)
    _one_line_error(cli(capsys, "match", "--db", db, str(tmp_path / "nope.log")), "nope.log", "No such file")
    (tmp_path / "empty").mkdir()  # a folder is a set of logs (app/logsets): one with no files is refused
    _one_line_error(cli(capsys, "match", "--db", db, str(tmp_path / "empty")), "no files")
    _one_line_error(cli(capsys, "match", "--db", db, str(log), str(tmp_path / "nope.log")), "nope.log", "No such file")
    _one_line_error(cli(capsys, "match", "--db", db, "--env", str(tmp_path / "freeze.txt"), str(log)), "freeze.txt")
    _one_line_error(cli(capsys, "export", "--db", db, "--out", str(made)), "is a file")
    assert made.read_text() == "an earlier export\n"  # untouched
    _one_line_error(cli(capsys, "import", "deadends", str(tmp_path), "--db", str(tmp_path / "d.db")), "Is a directory")
    _one_line_error(cli(capsys, "token", "list", "--db", str(tmp_path)), "is a folder")
    code, out, _ = cli(capsys, "match", "--db", db, str(log))  # the same command with a good file works
    assert code == 0 and "pytorch/nccl-timeout-allreduce" in out


def test_match_without_a_database_builds_one_per_user_and_says_where(tmp_path):
    """No --db and no $FAULTLINE_DB: the default database lives in the per-user data folder, is built from
    the KB on first use with one line saying where, and nothing is written into the current folder."""
    log = tmp_path / "train.log"
    log.write_text(SEED_LINE + "\n")
    data = tmp_path / "xdg"
    env = {"FAULTLINE_DB": "", "DATABASE_URL": "", "XDG_DATA_HOME": str(data)}
    r = faultline("match", str(log), cwd=tmp_path, env=env)
    err = r.stderr.decode()
    built = data / "faultline" / "faultline.db"
    assert r.returncode == 0 and "pytorch/nccl-timeout-allreduce" in r.stdout.decode(), err
    assert len(err.strip().splitlines()) == 1 and f"built the database {built}" in err, err
    assert built.is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["train.log", "xdg"]
    r = faultline("match", str(log), cwd=tmp_path, env=env)  # the second time it is read, not rebuilt
    assert r.returncode == 0 and r.stderr.decode() == "", r.stderr.decode()


def test_match_never_creates_a_named_database(tmp_path):
    """A database named by --db (or $FAULTLINE_DB) that does not exist is refused, never built here."""
    log = tmp_path / "train.log"
    log.write_text(SEED_LINE + "\n")
    r = faultline("match", "--db", str(tmp_path / "none.db"), str(log), cwd=tmp_path)
    err = r.stderr.decode()
    assert r.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "no database at" in err and "faultline load" in err
    assert list(tmp_path.iterdir()) == [log]


def test_bad_flags_print_the_verbs_own_usage(capsys):
    for args, says in ((["match", "--jsno", "x.log"], "unrecognized arguments: --jsno"),
                       (["match", "--lang", "fr", "x.log"], "invalid choice: 'fr'"),
                       (["match", "--limit", "0", "x.log"], "0 is less than 1"),
                       (["token", "create", "--scope", "report", "--colour"], "unrecognized arguments: --colour")):
        code, _, err = cli(capsys, *args)
        assert code == 2 and "Traceback" not in err, err
        verb = " ".join(a for a in args[:2] if not a.startswith("-") and not a.endswith(".log"))
        assert err.startswith(f"usage: faultline {verb}"), err
        assert says in err.splitlines()[-1]
    code, _, err = cli(capsys)
    assert code == 2 and "required: VERB" in err


def test_a_closed_output_pipe_ends_quietly(own_db):
    """`faultline match ... | head -n 0`: the reader went away; the command stops with the status a shell
    gives a command stopped by SIGPIPE (141), says nothing, and never uses the usage-error code."""
    read_end, write_end = os.pipe()
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "match", "--db", str(own_db), "-"],
                            stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE, cwd=REPO)
    os.close(write_end)
    os.close(read_end)  # the reader is gone before anything was written, as with `| head -0`
    _, err = proc.communicate(SEED_LINE.encode(), timeout=120)
    assert proc.returncode == 141, err.decode()
    assert err.decode() == ""


def test_version_and_every_verbs_help_has_an_example_and_defaults(capsys):
    from faultline.cli import VERBS

    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.startswith("faultline ")
    for verb in [v.rstrip("_") for v in VERBS]:
        code, out, _ = cli(capsys, verb, "--help")
        assert code == 0 and "example" in out, (verb, out)
    serve = cli(capsys, "serve", "--help")[1]
    assert "(default: 127.0.0.1)" in serve and "(default: 8000)" in serve
    assert "(default: 5)" in cli(capsys, "match", "--help")[1]
