"""The package's layers import one way only: core <- data <- measures <- papers <- book."""

import ast
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lib" / "xalign"
LAYERS = ["core", "data", "measures", "papers", "book"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def imported_modules(path: pathlib.Path) -> list[str]:
    """Dotted xalign modules a file imports (relative imports resolved), without the ``xalign.`` prefix."""
    rel = path.relative_to(ROOT).parts
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-1])[: len(rel) - node.level]
                out.append(".".join(base + ([node.module] if node.module else [])))
            elif node.module and node.module.startswith("xalign."):
                out.append(node.module[len("xalign."):])
        elif isinstance(node, ast.Import):
            out += [a.name[len("xalign."):] for a in node.names if a.name.startswith("xalign.")]
    return out


def upward_imports() -> list[str]:
    bad = []
    for f in ROOT.rglob("*.py"):
        layer = f.relative_to(ROOT).parts[0]
        if layer not in RANK:
            continue
        for mod in imported_modules(f):
            top = mod.split(".")[0]
            if top in RANK and RANK[top] > RANK[layer]:
                bad.append(f"{f.relative_to(ROOT)} imports xalign.{mod}")
            # papers.meta (profiles, ranges, the ledger's paper.yaml) is the papers' shared layer, not a paper
            if layer == "papers" and top == "papers" and mod.split(".")[1] not in (f.relative_to(ROOT).parts[1], "meta"):
                bad.append(f"{f.relative_to(ROOT)} imports another paper: xalign.{mod}")
    return bad


def test_imports_flow_one_way():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    fake = tmp_path / "xalign"
    (fake / "core").mkdir(parents=True)
    (fake / "core" / "bad.py").write_text("from xalign.book.results import ChapterRun\nfrom ..measures import x\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", fake)
    assert len(upward_imports()) == 2


def test_modules_stay_small():
    big = {str(f.relative_to(ROOT)): n for f in ROOT.rglob("*.py")
           if (n := len(f.read_text(encoding="utf-8").splitlines())) > 450}
    assert big == {}


@pytest.mark.parametrize("name", ["load_encoder", "alignment_scores", "csls_topk", "procrustes", "fetch"])
def test_package_face(name):
    import xalign

    assert callable(getattr(xalign, name))


def test_every_module_imports():
    for f in sorted(ROOT.rglob("*.py")):
        parts = f.relative_to(ROOT.parent).with_suffix("").parts
        importlib.import_module(".".join(p for p in parts if p != "__init__"))
