"""Screenshots of the entry page pytorch/nccl-timeout-allreduce for the README:

    .venv/bin/python tests/e2e/screenshots.py [--out docs]

writes docs/screenshot-entry-en.png and docs/screenshot-entry-zh.png.  Starts its own server
(temporary database built from kb/) and drives /usr/bin/chromium headless, like the e2e tests.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from test_browser import SEED, chromium, running_server  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(HERE.parents[1] / "docs"), help="folder for the PNG files")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--full-page", action="store_true", help="the whole page, not the first screen")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp)) as base, chromium() as browser:
        for lang, locale in (("en", "en-US"), ("zh", "zh-CN")):
            ctx = browser.new_context(base_url=base, locale=locale,
                                      viewport={"width": args.width, "height": 1500}, device_scale_factor=1)
            page = ctx.new_page()
            page.goto(f"/errors/{SEED}?lang={lang}")
            page.emulate_media(color_scheme="light")
            target = out / f"screenshot-entry-{lang}.png"
            page.screenshot(path=str(target), full_page=args.full_page)
            ctx.close()
            print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
