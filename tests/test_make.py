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
