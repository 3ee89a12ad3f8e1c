"""Query sets and corpora for the benchmark: our own examples, the peer's canons
and scenarios, noisy wrappers and synthetic growth."""
from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path

from faultline.entry import Entry
from faultline.kbfiles import examples, load_kb
from faultline.peers.deadends import canon_to_entry, read_canons

REPO = Path(__file__).resolve().parent.parent
# the peer's corpus copy (canons.jsonl, scenarios.json); optional: without it the peer's columns say "not measured"
PEER_DATA = Path(os.environ.get("DEADENDS_CORPUS") or REPO.parent / "shared" / "peers" / "deadends")


def peer_corpus_present() -> bool:
    return (PEER_DATA / "canons.jsonl").is_file()


@dataclass
class Query:
    text: str
    expected: str | None  # an id; None for a negative
    accept: frozenset[str] = frozenset()  # ids that count as correct too (same signature text)
    domain: str | None = None


def own_kb() -> tuple[list[Entry], list[Query]]:
    kb = load_kb(REPO / "kb")
    qs = [Query(ex.read(), ex.entry_id) for ex in examples(REPO / "kb")]
    return kb.entries, qs


def peer_corpus(canons_path: Path) -> tuple[list[dict], list[Entry], dict[str, str]]:
    """(canons, our entries converted from them, peer id -> our id)."""
    canons = list(read_canons(canons_path))
    entries: list[Entry] = []
    id_map: dict[str, str] = {}
    seen: set[str] = set()
    for c in canons:
        e = canon_to_entry(c)
        if e.id in seen:
            continue
        seen.add(e.id)
        entries.append(e)
        id_map[c["id"]] = e.id
    return canons, entries, id_map


def signature_queries(canons: list[dict]) -> list[Query]:
    by_sig: dict[str, set[str]] = {}
    for c in canons:
        by_sig.setdefault(c["error"]["signature"].strip().lower(), set()).add(c["id"])
    return [
        Query(c["error"]["signature"], c["id"], frozenset(by_sig[c["error"]["signature"].strip().lower()]),
              c["error"].get("domain"))
        for c in canons
    ]


def scenario_queries(path: Path) -> list[Query]:
    data = json.loads(path.read_text())
    return [Query(s["error_message"], None, frozenset(), s["expected_domain"]) for s in data]


_NUM = re.compile(r"\d+")
_PATH = re.compile(r"(?:/[\w.-]+){2,}")


def perturb(line: str, rng: random.Random) -> str:
    """Change numbers and paths, as another run of the same error would."""
    line = _NUM.sub(lambda m: str(rng.randint(1, 99999)), line)
    return _PATH.sub(lambda m: "/home/u%d/run%d/%s" % (rng.randint(1, 9), rng.randint(1, 999), m.group(0).rsplit("/", 1)[-1]), line)


def noisy_log(error_line: str, rng: random.Random, lines: int = 150, ranks: bool = True) -> str:
    """A ~150-line training log with the error inside a Python traceback, rank prefixes on every line."""
    rank = rng.randint(0, 7)
    pre = f"[rank{rank}]:" if ranks else ""
    out: list[str] = []
    for step in range(lines - 25):
        loss = 2.5 - step * 0.01 + rng.random() * 0.05
        out.append(f"{pre}step {step:5d} | loss {loss:.4f} | lr 3.0e-04 | {rng.randint(900, 1100)} tok/s | mem {rng.randint(10, 70)}.{rng.randint(0, 9)} GiB")
    out.append(f"{pre}Traceback (most recent call last):")
    for fn, ln in (("train.py", 212), ("trainer/loop.py", 88), ("trainer/step.py", 41), ("model/block.py", 130)):
        out.append(f'{pre}  File "/home/user/project/{fn}", line {ln + rng.randint(0, 50)}, in run_{rng.randint(1, 9)}')
        out.append(f"{pre}    result = call_{rng.randint(1, 99)}(batch)")
    lib = "/opt/conda/lib/python3.11/site-packages/lib_%d/core.py" % rng.randint(1, 9)
    out.append(f'{pre}  File "{lib}", line {rng.randint(10, 900)}, in _inner')
    out.append(f"{pre}    raise err")
    out.append(f"{pre}{perturb(error_line, rng)}")
    for i in range(25 - 13):
        out.append(f"{pre}[W {rng.randint(100, 999)}] shutting down worker {i}")
    return "\n".join(out[:lines]) + "\n"


_TAG_WORDS = ["alpha", "bravo", "delta", "kilo", "lima", "oscar", "quartz", "sierra", "tango", "vector", "zulu", "nimbus"]


def grow(entries: list[Entry], size: int, seed: int = 7) -> list[Entry]:
    """Grow a corpus synthetically to ``size`` entries by mutating signatures and ids."""
    rng = random.Random(seed)
    out = list(entries[:size])
    words = _TAG_WORDS
    k = 0
    while len(out) < size:
        base = entries[k % len(entries)]
        k += 1
        tag = f"{rng.choice(words or _TAG_WORDS)}{rng.randint(10, 99999)}"  # words: the last pattern's, if any
        data = base.model_dump(mode="json")
        data["id"] = f"{base.domain}/{base.id.split('/', 1)[1]}-syn{k}"
        for s in data["signatures"]:
            words = re.findall(r"(?<![\\A-Za-z])[A-Za-z]{4,}", s["pattern"])
            if words:
                w = rng.choice(words)
                s["pattern"] = re.sub(rf"(?<![\\A-Za-z]){w}(?![A-Za-z])", tag, s["pattern"], count=1)
            else:
                s["pattern"] = f"{tag} (?:{s['pattern']})"
        out.append(Entry.model_validate(data))
    return out
