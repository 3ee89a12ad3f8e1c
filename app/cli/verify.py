"""`faultline verify`: check every signature's message text against the released packages (app/verify/)."""
from __future__ import annotations

import time


def register(sub) -> None:
    p = sub.add_parser(
        "verify", help="check each signature's text and version range against the released packages",
        description="For every signature whose versions note names a package and a range, fetch that package's "
                    "releases (pip download; NCCL from a git mirror of its tags) at the range's boundaries, just "
                    "outside them and inside, search them for the message's literal text, bisect to the first and "
                    "last release that has it, and write the record to kb/verification/<id>.json. "
                    "`faultline lint` then refuses a range that disagrees with its record.",
        epilog="examples:\n  faultline verify --only transformers/unrecognized-model-type\n"
               "  faultline verify --offline     (the cache only: no downloads)")
    p.add_argument("--only", action="append", default=None, help="an entry id, or a domain (e.g. peft); repeatable")
    p.add_argument("--cache", default=None,
                   help="cache folder (default: $XDG_CACHE_HOME/faultline/verify or ~/.cache/faultline/verify)")
    p.add_argument("--offline", action="store_true", help="use the cache only; releases not in it are skipped")
    p.add_argument("--dry-run", action="store_true", help="report, write no record")
    p.add_argument("--quiet", action="store_true", help="print only disagreements and the summary")
    p.set_defaults(fn=run)


def run(args) -> int:
    from faultline.kbfiles import load_kb
    from faultline.verify.run import verify_kb
    from faultline.verify.sources import Cache, Releases

    t0 = time.monotonic()
    kb = load_kb(args.kb, lenient=True)
    rel = Releases(Cache(args.cache), offline=args.offline)

    def progress(o) -> None:
        if args.quiet and o.status not in ("disagrees", "not_found", "unreadable"):
            return
        rec = (o.record or {}) if o.status != "unreadable" else {}  # an old record says nothing of this claim
        span = f"{rec.get('first_present')}..{rec.get('last_present')}" if rec.get("first_present") else ""
        pkg = f"{rec.get('package', '')} {rec.get('claim', '')}".strip()
        print(f"{o.status:11} {o.entry} [{o.signature}] {pkg} {span} {o.detail}".rstrip(), flush=True)

    summ = verify_kb(kb, args.kb, rel, only=args.only, write=not args.dry_run, progress=progress)
    checked = summ.count("agrees") + summ.count("disagrees") + summ.count("not_found")
    print(f"{len(summ.outcomes)} signatures: {checked} checked ({summ.count('agrees')} agree, "
          f"{summ.count('disagrees')} disagree, {summ.count('not_found')} text not found), "
          f"{summ.count('uncheckable')} uncheckable, {summ.count('no_claim')} without a checkable claim, "
          f"{summ.count('unreadable')} with an unreadable claim, "
          f"{summ.count('unavailable')} unavailable; {summ.downloads} downloads, {time.monotonic() - t0:.1f} s")
    return 1 if summ.count("disagrees") or summ.count("not_found") or summ.count("unreadable") else 0
