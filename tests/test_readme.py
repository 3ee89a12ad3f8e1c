"""The README's shell examples, run as written against a started `faultline serve`.

Every ```sh block is read; its `curl ...` and `faultline ...` commands (and `TOKEN=$(faultline ...)`)
run in one bash, in a scratch folder beside a database the service serves, with the README's
host:port replaced by the service's. The first output block after a ```sh block is what the README
says those commands print: the parts that do not vary (JSON keys, entry ids and error codes, HTTP
status lines and header names, and the fixed start of each plain line) must appear in what they
really print. Commands that do not talk to the service (make, docker, git, ...) are not run here.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import KB, REPO
from tests.support import Service

README = REPO / "README.md"
README_BASE = "http://127.0.0.1:8000"
RUN_FIRST = ("curl ", "faultline ", "head ", "TOKEN=$(faultline ")
NOT_HERE = ("faultline serve", "faultline mcp", "faultline run")  # long-running or needs a training job
ID = re.compile(r"^[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9._-]*$")


def blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^```(\w*)\n(.*?)^```\s*$", text, re.S | re.M)]


def commands(body: str) -> list[str]:
    """The runnable commands of a ```sh block: continuation lines joined, comments kept (bash drops them)."""
    out, cur = [], ""
    for line in body.splitlines():
        cur += line[:-1] + " " if line.endswith("\\") else line
        if line.endswith("\\"):
            continue
        cmd, cur = cur.strip(), ""
        if cmd.startswith(RUN_FIRST) and not cmd.startswith(NOT_HERE):
            out.append(cmd)
    return out


def examples() -> list[tuple[int, list[str], str | None]]:
    """(index, commands, shown output or None) for every ```sh block with runnable commands."""
    bl = blocks(README.read_text())
    out = []
    for i, (lang, body) in enumerate(bl):
        if lang != "sh" or not commands(body):
            continue
        shown = bl[i + 1][1] if i + 1 < len(bl) and bl[i + 1][0] in ("json", "text", "markdown", "") else None
        out.append((i, commands(body), shown))
    return out


def _json_tokens(doc, found: set[str]) -> None:
    if isinstance(doc, dict):
        for k, v in doc.items():
            found.add(f'"{k}"')
            if isinstance(v, str) and (ID.match(v) or k == "code" and re.fullmatch(r"[a-z_]+", v)):
                found.add(f'"{v}"')
            _json_tokens(v, found)
    elif isinstance(doc, list):
        for v in doc:
            _json_tokens(v, found)


def fixed_parts(shown: str) -> set[str]:
    """What of the shown output cannot vary from run to run."""
    found: set[str] = set()
    try:
        _json_tokens(json.loads(shown), found)
        return found
    except ValueError:
        pass
    in_headers = False
    for line in shown.splitlines():
        if not line.strip():
            in_headers = False
            continue
        if m := re.match(r"HTTP/1\.1 \d{3}", line):
            found.add(m.group(0))
            in_headers = True
            continue
        if in_headers and (m := re.match(r"([a-z-]+): ", line)):
            found.add(m.group(1) + ":")
            continue
        try:
            _json_tokens(json.loads(line), found)
            continue
        except ValueError:
            pass
        head = re.split(r"[0-9…]", line, maxsplit=1)[0].strip()
        if len(head) >= 4:
            found.add(head)
    return found


def present(token: str, real: str) -> bool:
    if token.startswith('"') and token.endswith('"'):  # a JSON key or value, compact or indented
        return re.search(re.escape(token) + r"\s*[:,}\]]", real) is not None or token in real
    return token in real


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    work = tmp_path_factory.mktemp("readme")
    (work / "kb").symlink_to(KB)
    (work / "tests").mkdir()
    (work / "tests" / "data").symlink_to(REPO / "tests" / "data")  # the saved runs the README matches
    setup = re.search(r"`(cp kb/examples/\S+ train\.log)`", README.read_text())
    assert setup, "the README says where to get a train.log"
    subprocess.run(setup.group(1), shell=True, cwd=work, check=True)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "FAULTLINE_KB": str(KB)}
    for var in ("FAULTLINE_DB", "DATABASE_URL", "FAULTLINE_SERVER"):
        env.pop(var, None)
    db = work / "faultline.db"
    r = subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "load", "--db", str(db)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    with Service(db, KB) as svc:
        yield svc, work, env


def test_the_readme_has_examples_to_check():
    found = examples()
    assert len(found) >= 5
    assert sum(len(c) for _, c, _ in found) >= 15
    assert all(shown is not None for _, _, shown in found[:3])


@pytest.mark.parametrize("index, cmds, shown", examples(), ids=lambda x: str(x) if isinstance(x, int) else "")
def test_readme_example_runs_as_written(served, index, cmds, shown):
    svc, work, env = served
    script = ["set -u"]
    for n, cmd in enumerate(cmds):
        script.append(f"{cmd.replace(README_BASE, svc.base)} || echo 'README COMMAND {n} FAILED' >&2")
    r = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work, env=env, capture_output=True, text=True,
                       timeout=300)
    assert "FAILED" not in r.stderr and "Traceback" not in r.stderr, (cmds, r.stderr)
    assert "command not found" not in r.stderr, r.stderr
    assert r.stdout.strip() or all(">" in c for c in cmds), cmds
    for bad in ('"code":"internal', "Internal Server Error"):
        assert bad not in r.stdout
    if shown is None:
        return
    missing = sorted(t for t in fixed_parts(shown) if not present(t, r.stdout))
    assert not missing, f"README output drifted for {cmds}: not in the real output: {missing}\n{r.stdout[:3000]}"


def test_every_verb_in_the_synopsis_exists():
    text = README.read_text()
    synopsis = text.split("## The `faultline` command", 1)[1].split("```", 2)[1]
    verbs = {m.group(1) for m in re.finditer(r"^faultline (\w+)", synopsis, re.M)}
    assert {"load", "serve", "match"} <= verbs
    for verb in verbs:
        r = subprocess.run([sys.executable, "-m", "faultline.cli", verb, "--help"], capture_output=True, cwd=REPO,
                           timeout=60)
        assert r.returncode == 0, verb


def test_the_faultline_run_sample_is_what_it_prints(served):
    """The README's `faultline run` sample: a command that prints the README's train.log on stderr and
    exits 1 gives that diagnosis (the fixed start of every line of it)."""
    svc, work, env = served
    text = README.read_text()
    i = text.index("```text\n$ faultline run -- torchrun")
    sample = text[i + 8:text.index("```", i + 8)]
    shown = sample[sample.index("faultline: the command failed"):]
    code = "import sys; sys.stderr.write(open('train.log').read()); sys.exit(1)"
    r = subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(work / "faultline.db"),
                        "--", sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr[-2000:]
    real = r.stderr[r.stderr.index("faultline: the command failed"):]
    for line in shown.splitlines():
        head = line.split("…", 1)[0].rstrip()
        assert head in real, f"README's faultline run sample drifted: {head!r} not in\n{real}"


def test_the_match_sample_shows_every_key_of_a_real_answer(served):
    """The README's /match JSON sample is a real answer, cut: every key a real answer has (top level, a
    match, a workaround, a reason, the root cause, the verdict) is in it, so no field goes unmentioned."""
    svc, work, env = served
    text = README.read_text()
    i = text.index("Real output (the first workaround")
    shown = json.loads(text[text.index("```json\n", i) + 8:text.index("\n```", text.index("```json\n", i) + 8)])
    import httpx

    real = httpx.post(f"{svc.base}/match", json={"text": shown["matches"][0]["matched"]["line"], "limit": 3},
                      timeout=60).json()
    pairs = [(real, shown), (real["matches"][0], shown["matches"][0]),
             (real["matches"][0]["workarounds"][0], shown["matches"][0]["workarounds"][0]),
             (real["matches"][0]["why"][0], shown["matches"][0]["why"][0]),
             (real["root_cause"], shown["root_cause"]), (real["verdict"], shown["verdict"])]
    for r, s in pairs:
        assert set(r) <= set(s), f"README's /match sample lacks {sorted(set(r) - set(s))}"
    assert real["matches"][0]["id"] == shown["matches"][0]["id"]
