"""Regenerate the real example logs under kb/examples/ by running real software.

Needs PyTorch (CPU build is enough): ``pip install torch==2.13.0`` in a separate
virtual environment, then ``python kb/examples/generate.py [GROUP ...]``.
The test suite does not need torch: it reads the saved logs.

Each module in ``generators/`` defines ``generate(run) -> None`` and calls
``run(entry_id, name, argv_or_script, ...)`` for every log it produces; logs are
written as ``kb/examples/<entry_id>/<name>.real.log`` after ``scrub()`` removed
anything that names the machine that produced them (paths, host, user).
"""
from __future__ import annotations

import getpass
import importlib
import os
import re
import socket
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NEUTRAL_SITE = "/opt/conda/lib/python3.11/site-packages"
NEUTRAL_WORK = "/workspace"


def scrub(text: str, workdir: str | Path | None = None) -> str:
    """Replace machine-specific paths, host and user names with neutral ones."""
    site = sysconfig.get_paths()["purelib"]
    stdlib = sysconfig.get_paths()["stdlib"]
    # most specific first: the venv lies inside the repository
    repls = [(site, NEUTRAL_SITE), (stdlib, "/opt/conda/lib/python3.11"), (sys.prefix, "/opt/conda"),
             (sys.base_prefix, "/opt/conda")]
    if workdir:
        repls.append((str(workdir), NEUTRAL_WORK))
    repls += [(str(REPO), NEUTRAL_WORK), (tempfile.gettempdir(), "/tmp")]
    for a, b in repls:
        text = text.replace(a, b)
    text = re.sub(r"/tmp/python-build\.[\w.]+/Python-[\d.]+/", "/usr/src/python/", text)
    host = socket.gethostname()
    if host:
        text = re.sub(rf"\b{re.escape(host)}\b", "node-01", text)
    user = getpass.getuser()
    if user and user != "root":
        text = re.sub(rf"\b{re.escape(user)}\b", "user", text)
    return text


def run_script(entry_id: str, name: str, script: str, args: list[str] | None = None,
               torchrun: dict | None = None, env: dict | None = None, timeout: int = 180,
               keep: str = "all") -> Path:
    """Run ``script`` (Python source) directly or under torchrun; save its output as an example log.

    ``torchrun`` is a dict of torchrun options, e.g. {"nproc_per_node": 2}.
    ``keep``: "all" (stdout+stderr interleaved) or "tail:N" (the last N lines).
    """
    with tempfile.TemporaryDirectory(prefix="fl-gen-") as tmp:
        path = Path(tmp) / "train.py"
        path.write_text(script)
        if torchrun is not None:
            opts = []
            for k, v in {"nnodes": 1, "master_port": _free_port(), **torchrun}.items():
                opts.append(f"--{k}={v}")
            argv = [sys.executable, "-m", "torch.distributed.run", *opts, str(path), *(args or [])]
        else:
            argv = [sys.executable, str(path), *(args or [])]
        full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1", **(env or {})}
        try:
            proc = subprocess.run(argv, cwd=tmp, env=full_env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=timeout)
            out = proc.stdout.decode("utf-8", errors="replace")
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or b"").decode("utf-8", errors="replace")
        out = scrub(out, tmp)
    if keep.startswith("tail:"):
        out = "\n".join(out.splitlines()[-int(keep[5:]):]) + "\n"
    dest = HERE / entry_id / f"{name}.real.log"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(out)
    print(f"  wrote {dest.relative_to(REPO)} ({len(out.splitlines())} lines)")
    return dest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(groups: list[str]) -> int:
    mods = sorted(p.stem for p in (HERE / "generators").glob("*.py") if not p.stem.startswith("_"))
    for name in groups or mods:
        print(f"[{name}]")
        mod = importlib.import_module(f"generators.{name}")
        mod.generate()
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main(sys.argv[1:]))
