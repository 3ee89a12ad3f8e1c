"""Many logs, one answer: match a set of files (per-rank logs, a torchrun --log-dir, error files, an
archive of them) with the one matcher, and say which file and line each finding came from.

    read (inputs) -> recognise each file (layout) -> merge into one paste (merge)
    -> match (app.matching, unchanged) -> annotate: file and line of each finding, the timeline,
       the ranks missing from a collective, the py-spy outlier (analysis)
"""
from __future__ import annotations

import time
from typing import Any

from faultline.i18n.translations import gettext_for
from faultline.logsets.analysis import known_ranks, missing_from_collective, stack_outliers, timeline
from faultline.logsets.inputs import Collected, Limits, LogSetError, read_paths, read_uploads
from faultline.logsets.merge import Merged, merge
from faultline.matching.budget import budget
from faultline.matching.logparse import parse_log, reuse_parse

N_ = lambda s: s  # noqa: E731 - marks a msgid for the catalogs

FINDING_TEXT = {
    "first_failing_rank": N_("rank %(rank)s failed first, in %(file)s line %(file_line)s"),
    "missing_from_collective": N_("ranks %(missing)s never reached the %(collective)s that ranks %(waiting)s wait in"),
    "stack_outlier": N_("py-spy: ranks %(ranks)s are elsewhere (%(frame)s) while the others wait in %(where)s"),
}


def _ranks_text(ranks: list[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def _with_file(d: dict[str, Any] | None, merged: Merged, line_key: str = "line_no") -> None:
    """Add ``file``/``file_line`` (and ``host``) to a result part that names a line of the merged paste;
    its ``line`` becomes the file's own line (without the rank prefix added for the matcher)."""
    if not d or d.get(line_key) is None:
        return
    o = merged.origin(d[line_key])
    if o is None:
        return
    src, n = o
    d["file"], d["file_line"] = src.info.name, n
    if src.info.host:
        d["host"] = src.info.host
    if src.part:
        d["file_part"] = src.part  # file_line counts the lines of this JSON field
    if src.timestamp:
        d["file_time"] = src.timestamp
    original = merged.original(d[line_key])
    if original is not None and "line" in d:
        d["line"] = original


def _left_out(s) -> dict[str, Any]:
    """The middle of a long file that was not read whole, and the ranges of it that were."""
    lo, hi = s.left_out
    read: list[list[int]] = []
    for n in s.line_nos:
        if lo <= n <= hi:
            if read and read[-1][1] == n - 1:
                read[-1][1] = n
            else:
                read.append([n, n])
    return {"from_line": lo, "to_line": hi, **({"read": read} if read else {})}


def annotate(res: dict[str, Any], merged: Merged, parsed, lang: str) -> dict[str, Any]:
    """The match result of a merged paste, with files and lines named and the multi-file findings."""
    _ = gettext_for(lang)
    from faultline.i18n.reasons import reason_text

    for m in res.get("matches", []):
        _with_file(m.get("matched"), merged)
        for why in m.get("why", []):  # "matched line N": the line of its file, which the reason now names
            params = why.get("params") or {}
            if isinstance(params.get("line"), int) and (o := merged.origin(params["line"])) is not None:
                params.update(line=o[1], file=o[0].info.name)
                why["text"] = reason_text(why["code"], params, lang) + f" ({o[0].info.name})"
    _with_file(res.get("root_cause"), merged)
    for b in res.get("benign", []):
        _with_file(b, merged)
    findings = res.setdefault("findings", [])
    tl = timeline(parsed, merged)
    rc = res.get("root_cause") or {}
    if rc.get("rank") is not None and rc.get("file"):
        findings.append({"kind": "first_failing_rank", "rank": rc["rank"], "file": rc["file"],
                         "file_line": rc["file_line"], "entries": [rc["entry"]] if rc.get("entry") else [],
                         "message": _(FINDING_TEXT["first_failing_rank"], rank=rc["rank"], file=rc["file"],
                                      file_line=rc["file_line"])})
    outliers = stack_outliers(merged)
    waits = tl + ((outliers["majority"] + outliers["outliers"]) if outliers else [])
    missing = missing_from_collective(waits, known_ranks(merged, parsed))
    if missing:
        findings.append({"kind": "missing_from_collective", **missing, "entries": [],
                         "message": _(FINDING_TEXT["missing_from_collective"], missing=_ranks_text(missing["missing"]),
                                      collective=missing["collective"], waiting=_ranks_text(missing["waiting"]))})
    if outliers:
        ranks = [o["rank"] for o in outliers["outliers"]]
        top = outliers["majority"][0]
        findings.append({"kind": "stack_outlier", **outliers, "entries": [],
                         "message": _(FINDING_TEXT["stack_outlier"],
                                      ranks=_ranks_text([r for r in ranks if r is not None]) or "?",
                                      frame=outliers["outliers"][0]["frame"], where=top["frame"])})
    res["files"] = [{"name": s.info.name, "kind": s.info.kind, "rank": s.info.rank, "host": s.info.host,
                     "attempt": s.info.attempt, "lines": s.total_lines,
                     **({"local_rank": True} if s.info.local_rank else {}),
                     **({"time": s.timestamp} if s.timestamp else {}),
                     **({"left_out": _left_out(s)} if s.left_out else {})}
                    for s in merged.sources]
    res["skipped_files"] = merged.skipped
    res["timeline"] = tl
    return res


def match_files(index, collected: Collected, environment: Any = None, limit: int = 5, lang: str = "en",
                budget_ms: float | None = None, cancel: Any = None, spent_ms: float = 0.0) -> dict[str, Any]:
    """The /match JSON for a set of files, annotated (see `annotate`).  ``budget_ms`` is the CPU budget of
    the whole request: ``spent_ms`` (reading the files) is taken off it, and what the match leaves is
    what the cross-file analysis may use."""
    from faultline.render.match import match_text

    t0 = time.thread_time()
    merged = merge(collected)
    if not collected.files and not collected.skipped:
        raise LogSetError(422, "empty_text", "no files were given (a folder with no files?)")
    # files that hold no text (empty, binary, a pickle) are listed in skipped_files; the answer is then
    # an ordinary one with no match, not an error: the files were read
    left = None
    if budget_ms:
        left = max(budget_ms * 0.1, budget_ms - spent_ms - (time.thread_time() - t0) * 1000)
    t1 = time.thread_time()
    text = merged.text or "\n"
    with reuse_parse(text):  # the analysis reads the parse the match made, not a second one
        res = match_text(index, text, environment, limit, lang, left * 0.7 if left else None, cancel)
        rest = max(left * 0.1, left - (time.thread_time() - t1) * 1000) if left else None
        with budget(rest, cancel):
            parsed = parse_log(merged.text)
    return annotate(res, merged, parsed, lang)


def match_paths(index, paths: list[str], **kw) -> dict[str, Any]:
    return match_files(index, read_paths(paths), **kw)


__all__ = ["match_files", "match_paths", "annotate", "read_paths", "read_uploads", "merge", "Limits", "LogSetError",
           "Collected", "FINDING_TEXT"]
