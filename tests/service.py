"""The real service (`faultline serve`) started on a free loopback port, over HTTP, for tests."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from tests.conftest import KB, REPO


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serve(db: Path, log: Path, env: dict | None = None) -> Iterator[str]:
    """Run `faultline serve --db DB` until the block ends; yields its base URL."""
    port = free_port()
    out = log.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "serve", "--db", str(db),
                             "--host", "127.0.0.1", "--port", str(port)], cwd=REPO, env=env,
                            stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError("the service did not start: " + log.read_text(errors="replace")[-2000:])
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise RuntimeError("the service did not answer /healthz within 30 s")
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        out.close()


@pytest.fixture(scope="module")
def started_service(kb_db, tmp_path_factory):
    """The base URL of `faultline serve` on the test database; stopped after the module."""
    with serve(kb_db, tmp_path_factory.mktemp("service") / "serve.log") as base:
        yield base
