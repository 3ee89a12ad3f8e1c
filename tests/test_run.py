"""`faultline run -- COMMAND`: real commands in real subprocesses, their output passed through, a
diagnosis on failure, the command's own exit code, and signals reaching its process group."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.conftest import KB, REPO
from tests.service import started_service  # noqa: F401 - a fixture: the real service over HTTP

OOM_LOG = KB / "examples" / "pytorch" / "cuda-out-of-memory" / "ddp-8gpu-rank3-oom-then-watchdog-timeouts.composed.log"


def run(db: Path, *command: str, extra: tuple[str, ...] = (), **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(db), *extra, "--",
                           *command], capture_output=True, cwd=REPO, timeout=120, **kw)


def py(code: str) -> tuple[str, ...]:
    return (sys.executable, "-c", textwrap.dedent(code))


def diagnosis_of(stderr: bytes) -> str:
    err = stderr.decode()
    assert "faultline: the command failed" in err, err[-2000:]
    return err[err.index("faultline: the command failed"):]


def test_known_error_on_stderr_passes_through_and_is_diagnosed(kb_db):
    # a script whose output is a real-looking 8-rank torchrun log: rank 3 runs out of GPU memory,
    # the other ranks then time out in the all-reduce
    script = py(f"""
        import sys
        print("epoch 1 starting")
        sys.stderr.write(open({str(OOM_LOG)!r}).read())
        sys.exit(1)
    """)
    r = run(kb_db, *script)
    assert r.returncode == 1
    assert r.stdout.decode() == "epoch 1 starting\n"  # stdout unchanged, nothing added
    err = r.stderr.decode()
    assert err.startswith(OOM_LOG.read_text())  # the command's stderr first, byte for byte
    diag = diagnosis_of(r.stderr)
    assert "exit code 1" in diag
    assert "(rank 3)" in diag.splitlines()[1] and "out of memory" in diag.splitlines()[1].lower()
    assert "[pytorch/cuda-out-of-memory]" in diag
    known = next(ln for ln in diag.splitlines() if "known error:" in ln)
    assert "nccl-timeout" not in known  # the symptom on the other ranks is not the answer
    assert "consequences of it: pytorch/nccl-timeout-allreduce" in diag  # it is listed as a consequence
    assert "try 1." in diag and "2. " in diag and "avoid: " in diag
    assert "more: /errors/pytorch/cuda-out-of-memory" in diag
    assert len(diag.splitlines()) <= 16  # short: whole short commands, one line of consequences


def test_real_python_exception_is_diagnosed_in_chinese(kb_db):
    # a real failure, no torch needed: a spawn pool cannot pickle a nested function
    script = py("""
        import multiprocessing as mp
        def main():
            def work(x):
                return x * 2
            with mp.get_context("spawn").Pool(1) as pool:
                print(pool.map(work, [1, 2]))
        if __name__ == "__main__":
            main()
    """)
    r = run(kb_db, *script, extra=("--lang", "zh"))
    assert r.returncode == 1
    assert "AttributeError: Can't pickle local object 'main.<locals>.work'" in r.stderr.decode()
    diag = r.stderr.decode()[r.stderr.decode().index("faultline: 命令失败"):]
    assert "退出码 1" in diag and "[pytorch/cant-pickle-local-object]" in diag and "建议 1." in diag


def test_succeeding_command_gets_no_extra_output(kb_db):
    script = py("""
        import sys
        sys.stdout.write("résultat: 42\\n")
        sys.stderr.write("RuntimeError: CUDA out of memory. (only a warning text; the run succeeds)\\n")
    """)
    direct = subprocess.run(script, capture_output=True, timeout=60)
    r = run(kb_db, *script)
    assert r.returncode == 0
    assert r.stdout == direct.stdout and r.stderr == direct.stderr


def test_unknown_error_keeps_exit_code_and_names_no_entry(kb_db):
    r = run(kb_db, *py("""
        import sys
        def parse(cfg):
            raise ValueError(f"bad learning rate in {cfg!r}")
        try:
            parse("cfg.yaml")
        except ValueError as e:
            print(f"Traceback (most recent call last):\\nValueError: {e}", file=sys.stderr)
            sys.exit(7)
    """))
    assert r.returncode == 7
    diag = diagnosis_of(r.stderr)
    assert "exit code 7" in diag and "[" not in diag and "/errors/" not in diag


def test_exit_codes_of_signals_and_missing_commands(kb_db):
    r = run(kb_db, *py("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"))
    assert r.returncode == 128 + signal.SIGKILL
    r = run(kb_db, "/nonexistent/command-xyz", "arg")
    assert r.returncode == 127 and "cannot run" in r.stderr.decode() and "Traceback" not in r.stderr.decode()


def test_output_is_live(kb_db, tmp_path):
    go = tmp_path / "go"
    proc = subprocess.Popen(
        [sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(kb_db), "--", *py(f"""
            import os, sys, time
            print("first line")  # no flush: faultline keeps a Python child unbuffered
            for _ in range(600):
                if os.path.exists({str(go)!r}):
                    print("second line"); sys.exit(0)
                time.sleep(0.05)
            sys.exit(9)
        """)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    try:
        assert proc.stdout.readline() == b"first line\n"  # read while the command is still waiting
        go.write_text("")
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out == b"second line\n" and proc.returncode == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signals_reach_the_command_process_group(kb_db, tmp_path, sig):
    marker = tmp_path / "grandchild"
    # the command starts a grandchild (as torchrun starts workers); both sleep until signalled
    grandchild = textwrap.dedent(f"""
        import signal, sys, time
        def stop(n, _f):
            open({str(marker)!r}, "w").write(signal.Signals(n).name)
            sys.exit(0)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        open({str(marker)!r} + ".ready", "w").write("")
        time.sleep(120)
    """)
    command = py(f"""
        import os, subprocess, sys, time
        g = subprocess.Popen([sys.executable, "-c", {grandchild!r}])
        while not os.path.exists({str(marker)!r} + ".ready"):
            time.sleep(0.05)
        print("ready", flush=True)
        time.sleep(120)
    """)
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(kb_db), "--",
                             *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    try:
        assert proc.stdout.readline() == b"ready\n"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + sig  # the command's own death by that signal, as a shell reports it
    assert marker.read_text() == signal.Signals(sig).name  # the grandchild got it too
    if sig == signal.SIGINT:  # Ctrl-C: said once, not diagnosed as an error
        tail = err.decode()[err.decode().index("faultline: "):]  # after the command's own KeyboardInterrupt
        assert tail.startswith("faultline: the run was stopped by you (Ctrl-C), not by an error"), err
        assert b"known error" not in err
    else:  # stopped by a signal sent to faultline (a scheduler, kill): no diagnosis
        assert b"faultline:" not in err


def test_diagnosis_from_a_server(kb_db, started_service):  # noqa: F811
    r = run(kb_db, *py(f"import sys; sys.stderr.write(open({str(OOM_LOG)!r}).read()); sys.exit(3)"),
            extra=("--server", started_service))
    assert r.returncode == 3
    diag = diagnosis_of(r.stderr)
    assert f"more: {started_service}/errors/pytorch/cuda-out-of-memory" in diag
    r = run(kb_db, *py("import sys; sys.stderr.write('RuntimeError: boom\\n'); sys.exit(4)"),
            extra=("--server", "http://127.0.0.1:9"))
    err = r.stderr.decode()
    assert r.returncode == 4 and "no diagnosis: cannot reach http://127.0.0.1:9" in err and "Traceback" not in err


# --- `faultline match`: standard input, --server, --format ---------------------------------------

DESYNC = "\n".join(
    f"[rank{r}]:[E ProcessGroupNCCL.cpp:523] [Rank {r}] Watchdog caught collective operation timeout: "
    f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600081 "
    "milliseconds before timing out." for r, seq in ((0, 1201), (1, 1198))) + "\n"


def match(*args: str, input: bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "match", *args], input=input,
                          capture_output=True, cwd=REPO, timeout=120)


def test_match_from_stdin_on_a_server_in_every_format(kb_db, started_service):  # noqa: F811
    log = OOM_LOG.read_bytes()
    r = match("-", "--server", started_service, input=log)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()
    assert out.startswith("First failure (rank 3): [rank3]: torch.OutOfMemoryError: CUDA out of memory.")
    assert "[pytorch/cuda-out-of-memory]" in out and "(rates are estimates)" in out
    assert "it explains the first failure in the log" in out  # the reasons

    as_json = json.loads(match("-", "--server", started_service, "--format", "json", input=log).stdout)
    alias = json.loads(match("-", "--db", str(kb_db), "--json", input=log).stdout)  # --json still works, locally
    assert as_json["matches"][0]["id"] == alias["matches"][0]["id"] == "pytorch/cuda-out-of-memory"
    assert as_json["root_cause"]["rank"] == alias["root_cause"]["rank"] == 3

    md = match("-", "--server", started_service, "--format", "md", input=log).stdout.decode()
    assert md.startswith("# Matches") and "**First failure (rank 3)**" in md
    assert f"## 1. [CUDA out of memory" in md and f"]({started_service}/errors/pytorch/cuda-out-of-memory)" in md
    assert "```" in md and "~~" in md  # commands fenced, dead ends struck through


def test_match_text_in_chinese_with_findings(kb_db):
    r = match("--db", str(kb_db), "--lang", "zh", "-", input=DESYNC.encode())
    out = r.stdout.decode()
    res = json.loads(match("--db", str(kb_db), "--lang", "zh", "--format", "json", "-", input=DESYNC.encode()).stdout)
    assert res["findings"], "two ranks stuck at different SeqNum are a finding"
    assert f"! {res['findings'][0]['message']}" in out
    assert "最早的失败 (rank" in out and "比率为估计值" in out
    for why in res["matches"][0]["why"]:
        assert why["text"] in out and not why["text"].isascii()  # reasons in the chosen language


def test_match_with_an_unreachable_server_says_so(kb_db):
    r = match("-", "--server", "http://127.0.0.1:9", input=b"RuntimeError: boom\n")
    err = r.stderr.decode()
    assert r.returncode == 2 and "cannot reach http://127.0.0.1:9" in err and "Traceback" not in err  # usage, not a failed load


def test_ctrl_c_at_a_terminal_reaches_the_command(kb_db):
    """On a real terminal (a pty), the command runs in the foreground: ^C goes to its process group."""
    import pty
    import select
    import time

    code = textwrap.dedent("""
        import sys, time
        try:
            print("ready", flush=True)  # inside the try: ^C may come as soon as this is read
            time.sleep(120)
        except KeyboardInterrupt:
            print("command got SIGINT", flush=True)
            sys.exit(130)
    """)
    pid, fd = pty.fork()
    if pid == 0:  # the child: faultline on the terminal
        os.chdir(REPO)
        os.execv(sys.executable, [sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(kb_db), "--",
                                  sys.executable, "-c", code])
    out = b""

    def read_until(done, limit=120.0):
        nonlocal out
        end = time.monotonic() + limit  # a bound on a hung test, not a timing assertion
        while not done() and time.monotonic() < end:
            if select.select([fd], [], [], 0.5)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # the terminal closed: faultline exited
                    return
                if not chunk:
                    return
                out += chunk

    status = None
    try:
        read_until(lambda: b"ready" in out)
        assert b"ready" in out
        os.write(fd, b"\x03")  # the terminal's interrupt character
        read_until(lambda: False)
        _, status = os.waitpid(pid, 0)
    finally:
        if status is None:  # not reaped: our own child is still there
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
    assert b"command got SIGINT" in out
    assert os.waitstatus_to_exitcode(status) == 130
    # the user stopped it: one line says so, and no error is diagnosed
    assert b"faultline: the run was stopped by you (Ctrl-C), not by an error" in out and b"known error" not in out


def test_signal_and_silent_exits_get_one_line(kb_db):
    """A command killed by a signal with no output: how it ended and what that signal usually means;
    a silent non-zero exit: one line. With output, the signal faultline saw is read like a launcher's
    report of it, so a bare SIGKILL leads to the host OOM killer's entry."""
    r = run(kb_db, *py("import os, signal; os.kill(os.getpid(), signal.SIGKILL)"))
    err = r.stderr.decode()
    assert r.returncode == 137
    assert err.splitlines() == ["faultline: the command failed (killed by signal 9) and printed nothing to diagnose",
                                "  SIGKILL: often the host's out-of-memory killer (check `dmesg` or the job's memory limit)"]
    r = run(kb_db, *py("import sys; sys.exit(3)"))
    assert r.returncode == 3
    assert r.stderr.decode() == "faultline: the command failed (exit code 3) and printed nothing to diagnose\n"
    r = run(kb_db, *py("""
        import os, signal
        print("epoch 0 step 120 loss 2.31", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """))
    diag = diagnosis_of(r.stderr)
    assert r.returncode == 137 and "[pytorch/worker-sigkill-host-oom]" in diag, diag


def test_whole_short_commands_and_the_line_that_does_the_work():
    from faultline.render.diagnosis import command_lines

    assert command_lines("x = x.detach()\nloss.backward()") == ["x = x.detach()", "loss.backward()"]
    long = ("accum = 4   # micro_batch = old_batch // accum\nfor i, batch in enumerate(loader):\n"
            "    loss = model(**batch).loss / accum\n    loss.backward()\n    if (i + 1) % accum == 0:\n"
            "        optimizer.step()\n")
    assert command_lines(long, "a smaller micro-batch with gradient accumulation") == [long.splitlines()[0]]
    assert command_lines("# a\n# b\n# c\n# d\n# e\nimport os\n") == []


def test_ctrl_c_is_stopped_by_you_with_each_process_frame(kb_db, tmp_path):
    """Stopping a run with Ctrl-C is not an error: faultline says so and where the process was, and
    names no entry for the KeyboardInterrupt or what stopping caused."""
    script = tmp_path / "hang.py"
    script.write_text(textwrap.dedent("""
        import time

        def wait_for_batch():
            print("waiting for the next batch", flush=True)
            time.sleep(600)

        wait_for_batch()
    """))
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "run", "--db", str(kb_db), "--",
                             sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    line = proc.stdout.readline()  # the command is running
    assert b"waiting for the next batch" in line
    time.sleep(2)  # into time.sleep(600)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    err = err.decode()
    assert "KeyboardInterrupt" in err  # the command's own traceback passes through
    tail = err[err.index("faultline: "):]
    assert tail.startswith("faultline: the run was stopped by you (Ctrl-C), not by an error"), tail
    assert f"{script}:6 in wait_for_batch: time.sleep(600)" in tail, tail
    assert "known error" not in tail
