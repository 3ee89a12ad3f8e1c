"""The Makefile's set-up: a second `make setup` (and so `make run` / `make test`) installs nothing."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def dry_run(where, *goals: str) -> str:
    r = subprocess.run(["make", "-n", *goals], cwd=where, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture()
def checkout(tmp_path):
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy2(REPO / name, tmp_path / name)
    return tmp_path


def test_fresh_checkout_creates_the_venv_and_installs_pinned(checkout):
    plan = dry_run(checkout, "setup")
    assert "-m venv .venv" in plan and "pip install -q -c constraints.txt -e '.[test]'" in plan
    for goal in ("i18n-extract", "i18n-update", "i18n-compile"):  # the translation targets set up first
        assert "-m venv .venv" in dry_run(checkout, goal), goal


def test_second_setup_installs_nothing_until_pyproject_changes(checkout):
    (checkout / ".venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, checkout / ".venv" / "bin" / "python")
    stamp = checkout / ".venv" / ".faultline-installed"
    stamp.touch()
    for goal in ("setup", "test", "run"):
        plan = dry_run(checkout, goal)
        assert "pip" not in plan and "-m venv" not in plan, (goal, plan)
    later = time.time() + 5
    os.utime(checkout / "pyproject.toml", (later, later))  # a changed dependency list
    assert "pip install" in dry_run(checkout, "setup")


def _pg_pass(port: int, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "pg-pass", f"PG_PORT={port}", f"BIN={os.path.dirname(sys.executable)}"],
                          cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "FAULTLINE_REQUIRE_PG": "", **env})


def test_postgresql_pass_is_skipped_loudly_without_a_server_and_required_in_ci():
    """`make test`'s second pass: where nothing answers it says so on one loud line and goes on; with
    FAULTLINE_REQUIRE_PG=1 (what .ci/run sets) the same situation fails."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = _pg_pass(port)
    assert r.returncode == 0, r.stderr
    assert f"SKIPPED pass 2 of 2 (PostgreSQL): nothing answers on 127.0.0.1:{port}" in r.stderr
    assert "pytest" not in r.stdout
    r = _pg_pass(port, FAULTLINE_REQUIRE_PG="1")
    assert r.returncode != 0 and "FAULTLINE_REQUIRE_PG is set" in r.stderr
    assert "FAULTLINE_REQUIRE_PG=1 make test" in (REPO / ".ci" / "run").read_text()
    assert "test-fast:" in (REPO / "Makefile").read_text()
