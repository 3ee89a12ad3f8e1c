"""The short diagnosis `faultline run` prints to stderr when a command fails: the first failing
rank, the top entry, its two best workarounds, the dead end to avoid, and the link."""
from __future__ import annotations

import re
from typing import Any

from faultline.render.labels import pct
from faultline.render.text import rate_label, rates_estimated
from faultline.render.verdict import verdict_line

_L = {
    "en": {
        "failed": "the command failed ({how})", "exit": "exit code {n}", "signal": "killed by signal {n}",
        "first": "first failure", "rank": "rank", "known": "known error", "try": "try",
        "avoid": "avoid", "more": "more", "none": "no known error in its last {n} lines of output",
        "estimated": "rates are estimates", "confidence": "confidence",
        "no_entry": "no entry knows this error",
        "retrying": "the failure is transient: running it again (attempt {attempt} of {attempts}): {reason}",
        "not_transient": "not running it again: the verdict is not transient ({label})",
        "no_verdict": "not running it again: nothing says the failure is transient",
        "spent": "the failure is transient, but the {n} retries asked for are spent",
        "worked": "the retry worked: the command succeeded on attempt {attempt} of {attempts}",
        "silent_exit": "the command failed ({how}) and printed nothing to diagnose",
        "stopped": "the run was stopped by you (Ctrl-C), not by an error",
        "where": "where each process was",
        "consequences": "also in the log, consequences of it",
    },
    "zh": {
        "failed": "命令失败（{how}）", "exit": "退出码 {n}", "signal": "被信号 {n} 终止",
        "first": "最早的失败", "rank": "rank", "known": "已知错误", "try": "建议",
        "avoid": "避免", "more": "详情", "none": "输出的最后 {n} 行中没有已知错误",
        "estimated": "比率为估计值", "confidence": "置信度",
        "no_entry": "知识库中没有这个错误",
        "retrying": "这是暂时性故障：重新运行（第 {attempt} 次，共 {attempts} 次）：{reason}",
        "not_transient": "不再重新运行：判定不是暂时性故障（{label}）",
        "no_verdict": "不再重新运行：没有依据表明这是暂时性故障",
        "spent": "这是暂时性故障，但要求的 {n} 次重试已经用完",
        "worked": "重试成功：命令在第 {attempt} 次（共 {attempts} 次）运行时成功",
        "silent_exit": "命令失败（{how}），没有输出可供诊断",
        "stopped": "运行是被你中止的（Ctrl-C），不是出错",
        "where": "各进程停止时所在的位置",
        "consequences": "日志中还有它造成的后果",
    },
}


# what each signal that ends a training process usually means (one line each; the entries say more)
SIGNALS = {
    "en": {9: "SIGKILL: often the host's out-of-memory killer (check `dmesg` or the job's memory limit)",
           7: "SIGBUS: often /dev/shm too small for DataLoader workers, or a memory-mapped file that shrank",
           11: "SIGSEGV: a native crash (run with PYTHONFAULTHANDLER=1 to see the stack)",
           6: "SIGABRT: a native abort (a failed check or an uncaught C++ exception; its message is above)",
           15: "SIGTERM: stopped by the scheduler or another process (a time limit, a preemption)",
           4: "SIGILL: an instruction this CPU does not have (a build for another CPU)"},
    "zh": {9: "SIGKILL：常见原因是主机的内存不足终止程序（OOM killer；查看 `dmesg` 或作业的内存上限）",
           7: "SIGBUS：常见原因是 /dev/shm 对 DataLoader worker 来说太小，或内存映射的文件变短了",
           11: "SIGSEGV：本地代码崩溃（加上 PYTHONFAULTHANDLER=1 运行可以看到调用栈）",
           6: "SIGABRT：本地代码中止（检查失败或未捕获的 C++ 异常；信息在上面的输出里）",
           15: "SIGTERM：被调度器或其他进程停止（时间上限、抢占）",
           4: "SIGILL：这颗 CPU 没有的指令（为别的 CPU 编译的版本）"},
}


def signal_line(signal: int | None, lang: str = "en") -> str | None:
    """One line on what the signal that ended the command usually means (None for no signal / unknown)."""
    return SIGNALS.get(lang, SIGNALS["en"]).get(signal or 0)


def silent_failure(*, returncode: int, signal: int | None, lang: str = "en") -> str:
    """What `faultline run` says when the command failed and printed nothing: one line, two for a signal."""
    L = _L.get(lang, _L["en"])
    how = L["signal"].format(n=signal) if signal else L["exit"].format(n=returncode)
    out = f"faultline: {L['silent_exit'].format(how=how)}\n"
    if (hint := signal_line(signal, lang)) is not None:
        out += f"  {hint}\n"
    return out


def stopped_by_user(res: dict[str, Any], lang: str = "en") -> str:
    """The run was stopped with Ctrl-C: say so, and where each process was (a hang's one useful fact)."""
    L = _L.get(lang, _L["en"])
    out = [f"faultline: {L['stopped']}"]
    found = next((f for f in res.get("findings") or [] if f.get("kind") == "interrupted"), None)
    frames = (found or {}).get("frames") or []
    if frames:
        out.append(f"  {L['where']}:")
    for fr in frames[:16]:
        who = f"{L['rank']} {fr['rank']}" if fr.get("rank") is not None else "process"
        code = f": {_one_line(fr['code'], 100)}" if fr.get("code") else ""
        out.append(f"    {who}: {fr.get('file')}:{fr.get('line')} in {fr.get('function')}{code}")
    return "\n".join(out) + "\n"


_NOT_THE_WORK = ("#", "import ", "from ", "print(", "python -c \"import", "python -c 'import")


def command_lines(command: str | None, action: str | None = None, short: int = 4) -> list[str]:
    """A workaround's command as `faultline run` shows it: in full when it is short (at most ``short``
    lines), else the one line that does the work (not a comment, an import or a print; the one that
    shares most words with the action), else nothing."""
    lines = [c.rstrip() for c in (command or "").splitlines() if c.strip()]
    if len(lines) <= short:
        return lines
    work = [c for c in lines if not c.strip().startswith(_NOT_THE_WORK)]
    if not work:
        return []
    words = {w.lower().strip(".,:;()`'\"-") for w in (action or "").replace("-", " ").split()}
    words = {w for w in words if len(w) >= 4}

    def score(line: str) -> int:  # words shared with the action; "accum" counts for "accumulation"
        toks = [t.lower().strip(".,:;()`'\"") for t in re.split(r"[\s=().,\[\]{}:_/-]+", line)]
        return sum(1 for t in toks if len(t) >= 4 and any(a.startswith(t) or t.startswith(a) for a in words))
    best = max(work, key=score)  # the first of the best, as max keeps the first maximum
    return [best]


def _one_line(s: str | None, width: int = 220) -> str:
    s = " ".join((s or "").split())
    return s if len(s) <= width else s[: width - 1] + "…"


def retry_note(what: str, lang: str = "en", **params) -> str:
    """What `faultline run --retry-transient` says before a rerun, instead of one, or after one worked."""
    L = _L.get(lang, _L["en"])
    if what == "not_transient" and not params.get("label"):
        what = "no_verdict"
    return L[what].format(**params)


def diagnosis(res: dict[str, Any], *, returncode: int, signal: int | None, lines: int, lang: str = "en",
              link: str | None = None) -> str:
    L = _L.get(lang, _L["en"])
    how = L["signal"].format(n=signal) if signal else L["exit"].format(n=returncode)
    out = [f"faultline: {L['failed'].format(how=how)}"]
    rc = res.get("root_cause") or {}
    matches = res.get("matches") or []
    if rc.get("line"):
        rank = f" ({L['rank']} {rc['rank']})" if rc.get("rank") is not None else ""
        out.append(f"  {L['first']}{rank}: {_one_line(rc['line'])}")
    if (verdict := verdict_line(res.get("verdict"), lang)) is not None:
        out.append(f"  {verdict}")
    if not matches:
        if signal and (hint := signal_line(signal, lang)) is not None:
            out.append(f"  {hint}")
        if rc.get("line"):
            out.append(f"  {L['no_entry']}")
        else:
            out.append(f"  {L['none'].format(n=lines)}")
        return "\n".join(out) + "\n"
    top = matches[0]
    if signal and (hint := signal_line(signal, lang)) is not None and not rc.get("line"):
        out.append(f"  {hint}")
    conf = f"{L['confidence']} {pct(top['confidence'])}" if top.get("confidence") is not None else ""
    out.append(f"  {L['known']}: {top['title']}  [{top['id']}]  {conf}".rstrip())
    for i, w in enumerate((top.get("workarounds") or [])[:2], 1):
        rate = f"{rate_label(w['success_rate'], w.get('success_rate_evidence'))} " if w.get("success_rate") is not None else ""
        label = L["try"] if i == 1 else " " * len(L["try"])
        out.append(f"  {label} {i}. {rate}{_one_line(w.get('action'))}")
        for c in command_lines(w.get("command"), w.get("action")):
            out.append(f"  {' ' * len(L['try'])}    $ {c if len(c) <= 160 else c[:159] + '…'}")
    dead = top.get("dead_ends") or []
    if dead:
        d = dead[0]
        why = f" ({_one_line(d.get('why_fails'), 120)})" if d.get("why_fails") else ""
        out.append(f"  {L['avoid']}: {_one_line(d.get('action'), 140)}{why}")
    if top.get("consequences"):
        ids = ", ".join(c["id"] for c in top["consequences"][:4])
        out.append(f"  {L['consequences']}: {ids}")
    if top.get("workarounds") and rates_estimated(top):
        out.append(f"  ({L['estimated']})")
    out.append(f"  {L['more']}: {link or top.get('url')}")
    return "\n".join(out) + "\n"
