"""Regenerate the real example logs under kb/examples/ by running real software.

Needs PyTorch (CPU build is enough): ``pip install torch==2.13.0`` in a separate
virtual environment, then ``python tools/examples/generate.py [GROUP ...]``.
The test suite does not need torch: it reads the saved logs.

A log is only replaced when the run printed the error its entry describes (one
of the entry's signatures matches a line): the output goes to a temporary file
first, and a run that failed for another reason (torch missing, a changed
message) keeps the old log and makes the command exit non-zero.

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
EXAMPLES = REPO / "kb" / "examples"
ENTRIES = REPO / "kb" / "entries"
FAILED: list[str] = []  # "entry_id/name: why" for every log that was not written
NEUTRAL_SITE = "/opt/conda/lib/python3.11/site-packages"
NEUTRAL_WORK = "/workspace"


def scrub(text: str, workdir: str | Path | None = None) -> str:
    """Replace machine-specific paths, host and user names with neutral ones."""
    site = sysconfig.get_paths()["purelib"]
    stdlib = sysconfig.get_paths()["stdlib"]
    # most specific first: the venv lies inside the repository
    # libraries installed with `pip install --target DIR` and found through PYTHONPATH read as site-packages
    extra = [(p.rstrip("/"), NEUTRAL_SITE) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p.strip("/")]
    repls = extra + [(site, NEUTRAL_SITE), (stdlib, "/opt/conda/lib/python3.11"), (sys.prefix, "/opt/conda"),
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
    dest = EXAMPLES / entry_id / f"{name}.real.log"
    why = _missing_error(entry_id, out)
    if why:
        FAILED.append(f"{entry_id}/{name}: {why}")
        print(f"  KEPT {dest.relative_to(REPO)}: {why}", file=sys.stderr)
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=dest.parent)
    with os.fdopen(fd, "w") as fh:
        fh.write(out)
    os.replace(tmp_name, dest)
    print(f"  wrote {dest.relative_to(REPO)} ({len(out.splitlines())} lines)")
    return dest


def _missing_error(entry_id: str, out: str) -> str | None:
    """Why ``out`` does not show the entry's error, or None when one of its signatures matches a line."""
    try:
        import yaml  # PyYAML: in the generating environment, `pip install pyyaml` beside torch
    except ModuleNotFoundError:
        raise SystemExit("tools/examples/generate.py needs PyYAML to read the entries: "
                         "pip install pyyaml (in the environment that has torch)") from None

    path = next((p for p in (ENTRIES / f"{entry_id}.yaml", ENTRIES / f"{entry_id}.json") if p.exists()), None)
    if path is None:
        return f"no entry file for {entry_id}"
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    lines = out.splitlines()
    for sig in doc.get("signatures", []):
        try:
            rx = re.compile(sig["pattern"], re.IGNORECASE if sig.get("ignore_case") else 0)
        except re.error:
            continue
        if any(rx.search(ln) for ln in lines):
            return None
    last = next((ln for ln in reversed(lines) if ln.strip()), "(no output)")
    return f"the run did not print the entry's error; its last line was {last[:160]!r}"


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
    if FAILED:
        print(f"{len(FAILED)} log(s) not written:", file=sys.stderr)
        for f in FAILED:
            print(f"  {f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    # the generators do `from generate import run_script`: that is a second module object, and its
    # FAILED list (not this __main__'s) is the one they fill, so run main() from it
    import generate

    sys.exit(generate.main(sys.argv[1:]))
