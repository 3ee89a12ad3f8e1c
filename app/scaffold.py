"""The scaffold `faultline new` writes, and the placeholders `faultline lint` refuses.

A scaffold holds every field of ``app.entry.Entry`` in both languages.  Every
value the writer must supply is a placeholder, a string starting ``TODO(``:
``TODO(en): ...`` / ``TODO(zh): ...`` for texts, ``TODO(rate): ...`` for numbers
and so on.  Numbers, dates and choices are placeholders too (strings where the
schema wants a number or a date), so a half-filled entry can never be loaded.
"""
from __future__ import annotations

import json
from pathlib import Path

import yaml

MARK = "TODO("

_TEMPLATE = """\
# Scaffold written by `faultline new`. Replace every TODO(...) value; `faultline lint` refuses
# this file while one is left. The fields are those of app/entry.py (Entry).
id: {id}
code: "TODO(code): an UPPER_SNAKE_CASE code, e.g. {code}"
title:
  en: "TODO(en): one line: the library, the message people search for, and what it means"
  zh: "TODO(zh): 用中文写一行标题：哪个库、用户会搜索的报错原文、它意味着什么"
error_text: "TODO(error_text): the full error line exactly as the library prints it"
category: "TODO(category): e.g. distributed_training, cuda_runtime, data_loading, installation"
tags: ["TODO(tag): a few lowercase keywords"]
# cause (default) | symptom (a consequence of a failure elsewhere) | wrapper (only reports that a
# child failed) | benign (a line people mistake for the cause; never the root cause)
role: "TODO(role): cause | symptom | wrapper | benign"
signatures:
  - name: "TODO(name): a lowercase-slug name for this wording"
    # RE2 syntax (no lookaround, no backreferences); the library's exact message text
    pattern: "TODO(pattern): the distinctive part of the exact message, as an RE2 pattern"
    ignore_case: false
    examples:
      - "TODO(example): one full log line this pattern must match"
    versions: "TODO(versions): which releases print this wording"
    # words that must also appear in the log when the message is generic; [] when it is distinctive
    context: []
root_cause:
  en: "TODO(en): why it happens, in a few sentences"
  zh: "TODO(zh): 用中文说明根本原因"
docs:
  - url: "TODO(url): https://... official documentation that exists"
    title: "TODO(title): the page's title"
workarounds:
  - action:
      en: "TODO(en): the fix that works most often"
      zh: "TODO(zh): 最常奏效的解决办法"
    command: "TODO(command): a command or code that applies it"
    success_rate: "TODO(rate): a round estimate between 0 and 1"
    condition:
      en: "TODO(en): when this applies"
      zh: "TODO(zh): 适用条件"
    tradeoff:
      en: "TODO(en): what it costs (delete tradeoff if nothing)"
      zh: "TODO(zh): 代价（没有则删除 tradeoff）"
    applies_to: []  # e.g. ["torch>=2.2"]
    sources: []
  - action:
      en: "TODO(en): the second fix"
      zh: "TODO(zh): 第二个解决办法"
    command: "TODO(command): a command or code that applies it"
    success_rate: "TODO(rate): a round estimate between 0 and 1"
    condition:
      en: "TODO(en): when this applies"
      zh: "TODO(zh): 适用条件"
    applies_to: []
    sources: []
dead_ends:
  - action:
      en: "TODO(en): what people try that does not work"
      zh: "TODO(zh): 人们常试但无效的做法"
    command: "TODO(command): what they run"
    why_fails:
      en: "TODO(en): why it does not help"
      zh: "TODO(zh): 为什么无效"
    fail_rate: "TODO(rate): a round estimate between 0 and 1"
    sources: []
versions:
  - package: "TODO(package): e.g. torch"
    range: "TODO(range): a PEP 440 range, e.g. >=2.0"
    status: "TODO(status): affected | fixed | not_affected | message_changed"
    introduced: "TODO(introduced): the first affected release (delete if unknown)"
    notes:
      en: "TODO(en): what changes in this range (delete notes if nothing)"
      zh: "TODO(zh): 这个版本范围内有什么变化（没有则删除 notes）"
fix_rate: "TODO(rate): a round estimate between 0 and 1"
confidence: "TODO(rate): a round estimate between 0 and 1"
evidence_count: "TODO(count): the number of .real.log files under kb/examples/{id}/"
first_seen: "TODO(date): YYYY-MM-DD of the first release or issue showing it"
provenance:
  source: curated
  rates: estimated
  note:
    en: "TODO(en): where the rates come from (curators' estimates, not measured outcomes)"
    zh: "TODO(zh): 说明这些比率的来源（整理者的估计，并非实测）"
completeness: "TODO(completeness): partial | complete"
related: ["TODO(related): ids of existing entries, domain/slug"]
leads_to: []  # ids of entries this error on one rank is known to cause elsewhere
guides: []
blame:
  kind: "TODO(blame): who must act: user_code | configuration | library_version | installation | environment | hardware | network | scheduler"
  reason:
    en: "TODO(en): one line: why it is theirs to act on"
    zh: "TODO(zh): 用中文写一行：为什么该由他们处理"
retry:
  kind: "TODO(retry): transient (retry as is) | after_change (retry only after the fix) | never_as_is"
  reason:
    en: "TODO(en): one line: why a rerun as is can or cannot succeed"
    zh: "TODO(zh): 用中文写一行：为什么原样重跑能或不能成功"
# every public thread read to write this entry (URLs); none found: seen_in: [] and seen_in_none says how you looked
seen_in: ["TODO(seen_in): the URL of each public thread you read for this entry"]
seen_in_none: null
reports_seen:
  count: "TODO(count): how many public threads report this message"
  date: "TODO(date): the day you counted, YYYY-MM-DD"
  how: "TODO(how): how you counted (the query, how many results you read)"
"""


def scaffold(entry_id: str, inbox: dict | None = None) -> str:
    """The YAML text of a new entry ``entry_id`` whose every value is a placeholder.

    ``inbox``: what an inbox group gives (``app.inbox.scaffold_fields``): its masked sample goes
    into the error text's and the first example's placeholders, and a comment names the group.
    """
    code = entry_id.split("/", 1)[1].replace("-", "_").replace(".", "_").upper()
    text = _TEMPLATE.format(id=entry_id, code=code)
    if inbox:
        q = json.dumps  # a JSON string is a valid YAML double-quoted scalar
        g = inbox["inbox"]
        text = text.replace(
            'error_text: "TODO(error_text): the full error line exactly as the library prints it"',
            f"error_text: {q(inbox['error_text'], ensure_ascii=False)}")
        text = text.replace(
            '      - "TODO(example): one full log line this pattern must match"',
            f"      - {q(inbox['signature_example'], ensure_ascii=False)}")
        text = text.replace(
            'first_seen: "TODO(date): YYYY-MM-DD of the first release or issue showing it"',
            f'first_seen: "TODO(date): YYYY-MM-DD of the first release or issue showing it; '
            f'this service first saw it on {inbox["first_seen"]}"')
        head = (f"# Started from the inbox group {g['fingerprint']}: pasted {g['count']} time(s) with no match,\n"
                f"# first {g['first_seen']}, last {g['last_seen']}. Its sample is masked (<n>, <path>, ...):\n"
                f"# write the exact message from the library's source, not the sample.\n")
        text = text.replace("id: ", head + "id: ", 1)
    return text


def placeholders(data: object, loc: str = "") -> list[str]:
    """Field paths (``workarounds.0.action.zh``) of every value that still holds a placeholder."""
    if isinstance(data, str):
        return [loc or "(root)"] if MARK in data else []
    if isinstance(data, dict):
        out: list[str] = []
        for k, v in data.items():
            out += placeholders(v, f"{loc}.{k}" if loc else str(k))
        return out
    if isinstance(data, list):
        out = []
        for i, v in enumerate(data):
            out += placeholders(v, f"{loc}.{i}" if loc else str(i))
        return out
    return []


def placeholder_fields(root: str | Path) -> dict[str, list[str]]:
    """Per entry file (path relative to ``root``): the fields that still hold a placeholder."""
    root = Path(root)
    found: dict[str, list[str]] = {}
    for path in sorted((root / "entries").rglob("*.y*ml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, yaml.YAMLError):
            continue  # unreadable files are reported by load_kb
        fields = placeholders(data)
        if fields:
            found[path.relative_to(root).as_posix()] = fields
    return found


def covered(fields: list[str], problem_field: str) -> bool:
    """Whether a schema problem at ``problem_field`` is only the consequence of a placeholder there."""
    return any(f == problem_field or f.startswith(problem_field + ".") for f in fields)
