"""Section labels of exported documents (Markdown, text), per language."""
LABELS = {
    "en": {
        "id": "ID", "also": "Also available as", "fix_rate": "Fix rate", "confidence": "Confidence",
        "evidence": "Reproduced logs", "first_seen": "First seen", "signatures": "Signatures", "error": "Error",
        "root_cause": "Root cause", "workarounds": "Workarounds", "dead_ends": "Dead ends",
        "dead_ends_intro": "Approaches that do not work:", "versions": "Version compatibility",
        "package": "Package", "range": "Range", "status": "Status", "introduced": "Introduced",
        "deprecated": "Deprecated", "notes": "Notes", "docs": "Official documentation", "related": "Related",
        "guides": "Guides", "success": "success", "fail": "fail", "when": "When", "tradeoff": "Trade-off",
        "why": "Why it fails", "provenance": "Provenance", "rates_estimated": "rates are estimates",
        "rates_measured": "rates are measured", "category": "Category", "tags": "Tags",
        "matches": "Matches", "no_match": "No known error matched.", "root_cause_line": "First failure",
        "rank": "rank", "at_line": "line {n}", "related_candidates": "Possibly related",
        "consequences": "Consequences of it in this log", "fits_log": "fits this log", "not_this_log": "not this log's case", "entries": "Entries", "summary": "Summary",
        "blame": "Who must act", "retry": "Retry", "verdict_entry": "from the entry",
        "verdict_derived": "derived from the log (no entry says it)",
    },
    "zh": {
        "id": "ID", "also": "其他格式", "fix_rate": "修复率", "confidence": "置信度",
        "evidence": "复现日志数", "first_seen": "首次出现", "signatures": "特征签名", "error": "错误信息",
        "root_cause": "根本原因", "workarounds": "解决办法", "dead_ends": "无效做法",
        "dead_ends_intro": "以下做法通常无效：", "versions": "版本兼容性",
        "package": "软件包", "range": "版本范围", "status": "状态", "introduced": "引入版本",
        "deprecated": "弃用版本", "notes": "说明", "docs": "官方文档", "related": "相关条目",
        "guides": "指南", "success": "成功率", "fail": "失败率", "when": "适用条件", "tradeoff": "代价",
        "why": "为何无效", "provenance": "来源", "rates_estimated": "比率为估计值",
        "rates_measured": "比率为实测值", "category": "类别", "tags": "标签",
        "matches": "匹配结果", "no_match": "没有匹配到已知错误。", "root_cause_line": "最早的失败",
        "rank": "rank", "at_line": "第 {n} 行", "related_candidates": "可能相关",
        "consequences": "本日志中由它造成的后果", "fits_log": "符合本日志", "not_this_log": "不是本日志的情况", "entries": "条目", "summary": "概述",
        "blame": "由谁处理", "retry": "是否重试", "verdict_entry": "来自条目",
        "verdict_derived": "由日志推断（没有条目给出判定）",
    },
}


def pct(x: float) -> str:
    return f"{round(x * 100)}%"


def rate_note(ev: dict, lang: str = "en") -> str:
    """How a rate was obtained: "estimated", or "from 3 reports, 90% interval 41–78%"."""
    return ev.get("detail") or ev["label"]


def rate_text(ev: dict, lang: str = "en") -> str:
    """A rate with how it was obtained: "75% (estimated)"."""
    return f"{pct(ev['value'])} ({rate_note(ev, lang)})"
