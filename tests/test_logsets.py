"""Many logs, one answer (app/logsets): real multi-process runs saved by tools/examples/logsets.py,
given as folders, archives, a multipart upload, `faultline match` / `faultline run --logs` and the MCP
match tool; and hostile archives refused in bounded time with nothing written."""
from __future__ import annotations

import io
import json
import os
import pickle
import stat
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import anyio
import pytest

from faultline.logsets import Limits, LogSetError, read_paths, read_uploads
from faultline.logsets.layout import recognise
from tests.conftest import KB, REPO

DATA = REPO / "tests" / "data" / "logsets"
TORCHRUN = DATA / "torchrun-4ranks-rank2-first"
SPAWN = DATA / "spawn-3ranks-rank1-first"
ERRFILES = DATA / "errorfile-only-2ranks"
HANG = DATA / "hang-4ranks-pyspy"
# (folder, entry, first failing rank, the file of the first failure ends with, its line there)
RUNS = [
    (TORCHRUN, "pytorch/embedding-index-out-of-range", 2, "attempt_0/2/error.json", None),
    (SPAWN, "pytorch/mat1-mat2-shape-mismatch", 1, "rank1.log", 7),
    (ERRFILES, "pytorch/state-dict-size-mismatch", 1, "attempt_0/1/error.json", None),
]


def files_of(folder: Path) -> list[tuple[str, bytes]]:
    return [(str(p.relative_to(folder)), p.read_bytes()) for p in sorted(folder.rglob("*")) if p.is_file()]


def tgz_of(folder: Path) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.add(folder, arcname=folder.name)
    return buf.getvalue()


def zip_of(folder: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files_of(folder):
            zf.writestr(f"{folder.name}/{name}", data)
    return buf.getvalue()


def upload(client, items: list[tuple[str, bytes]], **data):
    return client.post("/match", files=[("files", (n, d, "application/octet-stream")) for n, d in items], data=data)


def check(res: dict, entry: str, rank: int, file_end: str, file_line: int | None) -> None:
    assert res["matches"][0]["id"] == entry
    rc = res["root_cause"]
    assert rc["rank"] == rank and rc["entry"] == entry
    assert rc["file"].endswith(file_end), rc["file"]
    if file_line is not None:
        assert rc["file_line"] == file_line
    kinds = {f["kind"]: f for f in res["findings"]}
    assert kinds["first_failing_rank"]["rank"] == rank
    assert res["matches"][0]["matched"]["file"] == rc["file"]
    assert "[rank" not in rc["line"] or "[rank" in rc["line"]  # the file's own line (no prefix added by us)


# ----------------------------------------------------------------------------- the real runs


@pytest.mark.parametrize("folder,entry,rank,file_end,file_line", RUNS, ids=[r[0].name for r in RUNS])
def test_folder_archive_and_upload_give_the_first_failing_rank(client, folder, entry, rank, file_end, file_line):
    r = upload(client, files_of(folder))
    assert r.status_code == 200, r.text
    check(r.json(), entry, rank, file_end, file_line)
    for name, blob in ((f"{folder.name}.tar.gz", tgz_of(folder)), (f"{folder.name}.zip", zip_of(folder))):
        r = upload(client, [(name, blob)])
        assert r.status_code == 200, r.text
        res = r.json()
        check(res, entry, rank, file_end, file_line)
        assert res["root_cause"]["file"].startswith(f"{name}:{folder.name}/")


def test_torchrun_log_dir_names_the_error_file_and_the_missing_rank(client):
    res = upload(client, files_of(TORCHRUN)).json()
    rc = res["root_cause"]
    assert rc["file_part"] == "message.extraInfo.py_callstack"  # the error file's traceback, not a summary line
    assert rc["line"] == "IndexError: index out of range in self" and rc["file_time"].endswith("Z")
    files = {f["name"]: f for f in res["files"]}
    assert len(files) == 12 and files["none__0h7kebh/attempt_0/3/stderr.log"]["rank"] == 3
    assert files["none__0h7kebh/attempt_0/0/error.json"]["kind"] == "error_file"
    missing = next(f for f in res["findings"] if f["kind"] == "missing_from_collective")
    assert missing["collective"] == "all_reduce" and missing["missing"] == [2] and missing["waiting"] == [0, 1, 3]
    assert [t["rank"] for t in res["timeline"]][0] == 2 and len(res["timeline"]) == 4
    zh = upload(client, files_of(TORCHRUN), lang="zh").json()
    msg = next(f for f in zh["findings"] if f["kind"] == "missing_from_collective")["message"]
    assert "all_reduce" in msg and "从未" in msg


def test_a_hang_names_the_py_spy_outlier(client):
    res = upload(client, files_of(HANG)).json()
    out = next(f for f in res["findings"] if f["kind"] == "stack_outlier")
    assert [o["rank"] for o in out["outliers"]] == [3]
    assert out["outliers"][0]["frame"] == "load_shard (train.py:9)" and out["outliers"][0]["file"] == "pyspy/rank3.txt"
    assert {m["rank"] for m in out["majority"]} == {0, 1, 2}
    missing = next(f for f in res["findings"] if f["kind"] == "missing_from_collective")
    assert missing["missing"] == [3] and missing["collective"] == "all_reduce"


def faultline(*args: str, env: dict | None = None, timeout: int = 300):
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), *args], capture_output=True, cwd=REPO,
                          env={**os.environ, **(env or {})}, timeout=timeout)


def test_cli_match_folder_archive_and_run_logs(kb_db, tmp_path):
    r = faultline("match", "--db", str(kb_db), "--json", str(TORCHRUN))
    assert r.returncode == 0, r.stderr.decode()
    check(json.loads(r.stdout), *RUNS[0][1:])
    archive = tmp_path / "logs.tar.gz"
    archive.write_bytes(tgz_of(SPAWN))
    r = faultline("match", "--db", str(kb_db), str(archive))
    out = r.stdout.decode()
    assert r.returncode == 0 and "First failure (rank 1)" in out and "rank1.log:7" in out, out
    # several files named one by one: two error files
    errs = sorted(str(p) for p in ERRFILES.rglob("error.json"))
    r = faultline("match", "--db", str(kb_db), "--json", *errs)
    check(json.loads(r.stdout), *RUNS[2][1:])
    # `faultline run --logs`: the job's log folder with its console output, when the command fails
    r = faultline("run", "--db", str(kb_db), "--logs", str(TORCHRUN), "--",
                  sys.executable, "-c", "import sys; print('launcher: a worker failed'); sys.exit(1)")
    assert r.returncode == 1
    err = r.stderr.decode()
    assert "rank 2" in err and "IndexError: index out of range in self" in err, err


def test_mcp_match_tool_takes_several_texts(kb_db):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, cwd=str(REPO),
                                   args=["-m", "faultline.cli", "--kb", str(KB), "mcp", "--db", str(kb_db)])
    files = [{"name": n, "text": d.decode("utf-8")} for n, d in files_of(SPAWN)]

    async def go():
        async with Client(params) as c:
            r = await c.call_tool("match_log", {"files": files})
            assert not r.is_error, r.content
            return r.structured_content

    res = anyio.run(go)
    first = res["first_failure"]
    assert first["rank"] == 1 and first["file"] == "rank1.log" and first["file_line"] == 7
    assert res["matches"][0]["id"] == "pytorch/mat1-mat2-shape-mismatch"


# ----------------------------------------------------------------------------- layouts


@pytest.mark.parametrize("name,rank,host,kind", [
    ("run/attempt_0/3/stderr.log", 3, None, "stderr"),
    ("slurm-81234-5.out", 5, None, "log"),
    ("train.81234.6.err", 6, None, "log"),
    ("logs/rank_2.txt", 2, None, "log"),
    ("x.zip:logs/worker-1.log", None, "worker-1", "log"),
    ("trainer-master-0.log", None, "trainer-master-0", "log"),
    ("preprocess_1.log", None, None, "log"),
    ("main.log", None, None, "log"),
])
def test_recognise_rank_and_host_from_the_path(name, rank, host, kind):
    info = recognise(name, "some text\n")
    assert (info.rank, info.host, info.kind) == (rank, host, kind)


# ----------------------------------------------------------------------------- limits and hostile input


def zipped(members: list[tuple[str, bytes]], attrs: dict[str, int] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if attrs and name in attrs:
                info.external_attr = attrs[name] << 16
            zf.writestr(info, data)
    return buf.getvalue()


def refused(client, blob: bytes, name: str, status: int, code: str, limit: str | None = None) -> dict:
    t0 = time.monotonic()
    r = upload(client, [(name, blob)])
    assert time.monotonic() - t0 < 10
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code
    if limit:
        assert err["limit"] == limit and limit in err["message"]
    return err


def test_zip_bomb_is_refused_by_its_ratio(client):
    bomb = zipped([("rank0.log", b"\0" * (40 << 20))])
    assert len(bomb) < 100_000
    err = refused(client, bomb, "bomb.zip", 413, "limit_exceeded", "max_ratio")
    assert "FAULTLINE_LOGSET_MAX_RATIO" in err["message"]


def test_gzip_tar_bomb_stops_at_the_total_limit(monkeypatch):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("rank0.log")
        info.size = 24 << 20
        tf.addfile(info, io.BytesIO(b"a" * info.size))
    with pytest.raises(LogSetError) as exc:
        read_uploads([("bomb.tar.gz", buf.getvalue())])
    assert exc.value.status == 413 and exc.value.limit in ("max_total_bytes", "max_ratio")


def test_ten_thousand_files_are_refused(client):
    many = zipped([(f"logs/rank{i}.log", b"x\n") for i in range(10_000)])
    refused(client, many, "many.zip", 413, "limit_exceeded", "max_files")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for i in range(10_000):
            info = tarfile.TarInfo(f"logs/rank{i}.log")
            info.size = 2
            tf.addfile(info, io.BytesIO(b"x\n"))
    refused(client, buf.getvalue(), "many.tar.gz", 413, "limit_exceeded", "max_files")


@pytest.mark.parametrize("member", ["../evil.txt", "logs/../../evil.txt", "/var/evil.txt", "C:/evil.txt"])
def test_dot_dot_and_absolute_paths_are_refused(client, tmp_path, member):
    os.chdir(tmp_path)
    try:
        refused(client, zipped([("ok.log", b"fine\n"), (member, b"RuntimeError: x\n")]), "a.zip", 422, "unsafe_archive")
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            info = tarfile.TarInfo(member)
            info.size = 3
            tf.addfile(info, io.BytesIO(b"ab\n"))
        refused(client, buf.getvalue(), "a.tgz", 422, "unsafe_archive")
    finally:
        os.chdir(REPO)
    assert not list(tmp_path.rglob("evil.txt")) and not (tmp_path.parent / "evil.txt").exists()


def test_a_member_name_that_is_not_utf8_is_read_and_shown_with_a_replacement_character(client):
    """A tar member whose name has a byte that is not UTF-8 (a Latin-1 file name, say) is matched like any
    other file; the answer names it with U+FFFD, never fails on it."""
    data = (b"Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
            b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT) as tf:
        for member in ("attempt_0/0/stderr.log", "attempt_0/1/st\udce9rr.log"):  # b"st\xe9rr.log"
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    r = upload(client, [("logs.tgz", buf.getvalue())])
    assert r.status_code == 200, r.text
    names = [f["name"] for f in r.json()["files"]]
    assert "logs.tgz:attempt_0/1/st\ufffdrr.log" in names
    assert r.json()["matches"][0]["id"] == "pytorch/cuda-out-of-memory"


def test_links_in_archives_are_refused(client):
    refused(client, zipped([("logs/rank0.log", b"/etc/passwd")], {"logs/rank0.log": stat.S_IFLNK | 0o777}),
            "link.zip", 422, "unsafe_archive")
    for kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            info = tarfile.TarInfo("logs/rank0.log")
            info.type, info.linkname = kind, "/etc/passwd"
            tf.addfile(info)
        err = refused(client, buf.getvalue(), "link.tgz", 422, "unsafe_archive")
        assert "link" in err["message"]


def test_a_pickle_is_never_loaded(client, tmp_path):
    marker = tmp_path / "unpickled"

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    items = files_of(SPAWN) + [("fr_dump_0", pickle.dumps(Boom()))]
    res = upload(client, items).json()
    assert res["root_cause"]["rank"] == 1
    assert [s["name"] for s in res["skipped_files"]] == ["fr_dump_0"] and "pickle" in res["skipped_files"][0]["why"]
    assert not marker.exists()


def test_limits_come_from_the_settings(client, monkeypatch):
    monkeypatch.setenv("FAULTLINE_LOGSET_MAX_FILES", "3")
    err = refused(client, zip_of(SPAWN) + b"", "spawn.zip", 413, "limit_exceeded", "max_files")
    assert "FAULTLINE_LOGSET_MAX_FILES" in err["message"]
    r = upload(client, files_of(SPAWN))  # four parts: the form itself is over the limit
    assert r.status_code == 413 and r.json()["error"]["limit"] == "max_files", r.text
    monkeypatch.setenv("FAULTLINE_LOGSET_MAX_FILES", "512")
    monkeypatch.setenv("FAULTLINE_LOGSET_MAX_FILE_BYTES", "1000")
    r = upload(client, files_of(SPAWN))
    assert r.status_code == 413 and r.json()["error"]["limit"] == "max_file_bytes"
    monkeypatch.setenv("FAULTLINE_LOGSET_MAX_TOTAL_BYTES", "2000")
    r = upload(client, [("a.log", b"x" * 900), ("b.log", b"y" * 900), ("c.log", b"z" * 900)])
    assert r.status_code == 413 and r.json()["error"]["limit"] == "max_total_bytes"
    monkeypatch.setenv("FAULTLINE_LOGSET_MAX_TOTAL_BYTES", "100")
    r = upload(client, [("a.log", b"x" * 3_000_000)])  # the body itself is over the limit: refused as it arrives
    assert r.status_code == 413 and r.json()["error"]["limit"] == "max_total_bytes"


def test_bad_uploads_get_a_clear_422(client):
    r = client.post("/match", files=[("lang", (None, "en"))])  # a form with no file
    assert r.status_code == 422 and r.json()["error"]["code"] == "empty_text"
    r = upload(client, [("a.log", b""), ("b.bin", bytes(range(256)))])  # read, and nothing in them is text
    assert r.status_code == 200 and r.json()["matches"] == []
    assert r.json()["skipped_files"] == [{"name": "a.log", "why": "empty"}, {"name": "b.bin", "why": "not text"}]
    r = client.post("/match", content=b"--x\r\nnot a form", headers={"content-type": "multipart/form-data; boundary=x"})
    assert r.status_code == 422, r.text
    for field in ({"limit": "51"}, {"limit": "two"}, {"lang": "fr"}):
        r = upload(client, files_of(SPAWN)[:1], **field)
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", field
    r = client.post("/match", files=[("files", ("a.log", b"RuntimeError: boom\n", "text/plain")),
                                     ("environment", (None, "{}")), ("environment", (None, "[]"))])
    assert r.status_code == 422 and "environment" in r.json()["error"]["message"], r.text  # one value per field
    r = upload(client, [("broken.zip", b"PK\x03\x04" + b"\0" * 40)])
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_archive"


def test_links_in_folders_are_not_followed(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "rank0.log").write_text("RuntimeError: boom\n")
    (tmp_path / "secret.txt").write_text("not a log\n")
    (tmp_path / "logs" / "rank1.log").symlink_to(tmp_path / "secret.txt")
    got = read_paths([str(tmp_path / "logs")], Limits(10, 1000, 10_000, 100))
    assert [f.name for f in got.files] == [str(tmp_path / "logs" / "rank0.log")]
    assert got.skipped[0]["why"].startswith("a link")
