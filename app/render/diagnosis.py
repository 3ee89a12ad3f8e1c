"""The short diagnosis `faultline run` prints to stderr when a command fails: the first failing
rank, the top entry, its two best workarounds, the dead end to avoid, and the link."""
from __future__ import annotations

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
    },
}


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
        if rc.get("line"):
            out.append(f"  {L['no_entry']}")
        else:
            out.append(f"  {L['none'].format(n=lines)}")
        return "\n".join(out) + "\n"
    top = matches[0]
    conf = f"{L['confidence']} {pct(top['confidence'])}" if top.get("confidence") is not None else ""
    out.append(f"  {L['known']}: {top['title']}  [{top['id']}]  {conf}".rstrip())
    for i, w in enumerate((top.get("workarounds") or [])[:2], 1):
        rate = f"{rate_label(w['success_rate'], w.get('success_rate_evidence'))} " if w.get("success_rate") is not None else ""
        label = L["try"] if i == 1 else " " * len(L["try"])
        out.append(f"  {label} {i}. {rate}{_one_line(w.get('action'))}")
        cmd = [c for c in (w.get("command") or "").splitlines() if c.strip() and not c.lstrip().startswith("#")]
        if cmd:
            out.append(f"  {' ' * len(L['try'])}    $ {_one_line(cmd[0], 140)}")
    dead = top.get("dead_ends") or []
    if dead:
        d = dead[0]
        why = f" ({_one_line(d.get('why_fails'), 120)})" if d.get("why_fails") else ""
        out.append(f"  {L['avoid']}: {_one_line(d.get('action'), 140)}{why}")
    if top.get("workarounds") and rates_estimated(top):
        out.append(f"  ({L['estimated']})")
    out.append(f"  {L['more']}: {link or top.get('url')}")
    return "\n".join(out) + "\n"
