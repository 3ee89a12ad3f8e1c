"""Faultline installed where the training runs: the wheel of this checkout, installed with pip into a
fresh virtual environment, gives a `faultline` that works from any folder, with the knowledge base
inside the package, the import name `faultline` (no top-level `app`), and its default database in the
per-user data folder.

The wheel is built once for the module (pip fetches the build backend from the package index, as any
`pip install <clone>` does); the fresh environment gets the wheel alone, and finds its dependencies in
this test run's environment through a path file, so that nothing else is downloaded.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

# every package folder of app/ (an __init__.py) must be listed in pyproject.toml, or a wheel lacks it
APP = REPO / "app"


def test_every_package_folder_is_in_the_wheel_list():
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"faultline" + ("." + ".".join(p.parent.relative_to(APP).parts) if p.parent != APP else "")
             for p in APP.rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(bin folder of a fresh venv with the wheel installed, a scratch folder with no kb/ in it)."""
    tmp = tmp_path_factory.mktemp("pkg")
    wheels = tmp / "wheels"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(REPO)],
                       capture_output=True, text=True, timeout=900)
    if r.returncode != 0 and ("NewConnectionError" in r.stderr or "No matching distribution" in r.stderr):
        pytest.skip(f"the package index cannot be reached to fetch the build backend: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stderr[-3000:]
    wheel = next(wheels.glob("faultline-*.whl"))
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies (fastapi, re2, ...) from this run's environment; not faultline itself, whose editable
    # finder is a .pth file of that folder, which a path line does not execute
    (site / "zz-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                        "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
    assert not any(n.startswith("app/") for n in names)  # no top-level package called app
    assert "faultline/kb/entries/pytorch/cuda-out-of-memory.yaml" in names
    work = tmp / "project"
    work.mkdir()
    return venv / "bin", work, tmp / "data"


def _env(bin_dir: Path, data: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("FAULTLINE_DB", "DATABASE_URL", "FAULTLINE_KB",
                                                             "FAULTLINE_SERVER", "PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "XDG_DATA_HOME": str(data)}


def test_faultline_run_from_a_fresh_install_in_any_folder(installed):
    bin_dir, work, data = installed
    env = _env(bin_dir, data)
    r = subprocess.run([str(bin_dir / "python"), "-c", "import faultline, sys; import importlib.util as u; "
                        "print(faultline.__file__); sys.exit(0 if u.find_spec('app') is None else 1)"],
                       cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and str(bin_dir.parent) in r.stdout, (r.stdout, r.stderr)
    script = work / "train.py"
    script.write_text(textwrap.dedent("""
        print("epoch 0", flush=True)
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (16x63 and 64x32)")
    """))
    r = subprocess.run(["faultline", "run", "--", "python3", str(script)], cwd=work, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 1, r.stderr[-3000:]
    assert r.stdout == "epoch 0\n"
    db = data / "faultline" / "faultline.db"
    assert f"built the database {db}" in r.stderr  # said once, where
    assert "[pytorch/mat1-mat2-shape-mismatch]" in r.stderr, r.stderr[-3000:]
    assert sorted(p.name for p in work.iterdir()) == ["train.py"]  # nothing written into the current folder
    assert db.is_file()


def test_faultline_mcp_from_a_fresh_install(installed):
    bin_dir, work, data = installed
    env = _env(bin_dir, data)
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "test", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    # stdin stays open until the answer to tools/list has come (a closed stdin ends the server)
    proc = subprocess.Popen(["faultline", "mcp"], cwd=work, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    answers: dict = {}
    try:
        for m in msgs:
            proc.stdin.write(json.dumps(m) + "\n")
            proc.stdin.flush()
            if "id" not in m:
                continue
            while m["id"] not in answers:  # readline blocks until the server answers (or ends: "")
                line = proc.stdout.readline()
                assert line, proc.stderr.read()[-2000:]
                a = json.loads(line)
                if a.get("id") is not None:
                    answers[a["id"]] = a
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    names = {t["name"] for t in answers[2]["result"]["tools"]}
    assert {"match_log", "get_entry", "search_entries"} <= names
