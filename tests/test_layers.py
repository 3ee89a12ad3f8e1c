"""The import graph has no upward arrow: each part of app/ imports only parts of a lower layer.

Data flows one way (kb files -> models -> database -> match index -> a language-free result -> the edges
that render it), and so do imports.  A new module must be given its layer here."""
from __future__ import annotations

import ast

from tests.conftest import REPO

LAYERS = {
    "__init__": 0, "entry": 0, "settings": 0,
    "verification": 0.5, "kbfiles": 1, "scaffold": 1,
    "matching": 2, "rates": 2, "i18n": 2,
    "store": 3,
    "inbox": 4, "render": 4,
    "logsets": 4.5,
    "lint": 5, "verify": 5, "service": 5, "schemas": 5, "peers": 5, "runwrap": 5,
    "web": 6, "client": 6,
    "api": 7,
    "mcp": 8, "server": 8,
    "main": 9,
    "cli": 10,
}


def _edges() -> set[tuple[str, str, str]]:
    out = set()
    app = REPO / "app"
    for path in app.rglob("*.py"):
        part = path.relative_to(app).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name.startswith("faultline.") and name.split(".")[1] != part:
                    out.add((part, name.split(".")[1], str(path.relative_to(REPO))))
    return out


def test_every_part_of_app_has_a_layer():
    parts = {p.name.removesuffix(".py") for p in (REPO / "app").iterdir()
             if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").exists()))}
    assert parts - LAYERS.keys() == set(), "give these a layer in tests/test_layers.py"


def test_no_import_points_up_or_sideways():
    bad = sorted(f"{where}: {a} (layer {LAYERS[a]}) imports {b} (layer {LAYERS[b]})"
                 for a, b, where in _edges() if LAYERS[b] >= LAYERS[a])
    assert not bad, "\n".join(bad)


def test_the_matcher_knows_no_language_and_no_edge():
    matching = {b for a, b, _ in _edges() if a == "matching"}
    assert matching <= {"entry"}, matching
