"""The package's layers import one way only: core <- data <- measures <- papers <- card <- book; the card
borrows nothing from a paper (what it shares with a chapter lives in measures); the test fixtures
(``xalign.testing``) sit beside them: they import only core, and no layer imports them."""

import ast
import importlib
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "lib" / "xalign"
LAYERS = ["core", "data", "measures", "papers", "card", "book"]
RANK = {name: i for i, name in enumerate(LAYERS)}
#: packages beside the layers -> the layers they may import (no layer may import them)
SIDE = {"testing": {"core"}}


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
        if layer in SIDE:
            bad += [f"{f.relative_to(ROOT)} imports xalign.{mod}" for mod in imported_modules(f)
                    if mod.split(".")[0] not in SIDE[layer] | {layer}]
            continue
        if layer not in RANK:
            continue
        for mod in imported_modules(f):
            top = mod.split(".")[0]
            if top in SIDE:
                bad.append(f"{f.relative_to(ROOT)} imports the test fixtures: xalign.{mod}")
            if top in RANK and RANK[top] > RANK[layer]:
                bad.append(f"{f.relative_to(ROOT)} imports xalign.{mod}")
            # papers.meta (profiles, ranges, the ledger's paper.yaml) is the papers' shared layer, not a paper
            if layer == "papers" and top == "papers" and mod.split(".")[1] not in (f.relative_to(ROOT).parts[1], "meta"):
                bad.append(f"{f.relative_to(ROOT)} imports another paper: xalign.{mod}")
            if layer == "card" and top == "papers":  # a measure the card shares with a chapter sits in measures
                bad.append(f"{f.relative_to(ROOT)} borrows from a paper: xalign.{mod}")
    return bad


def test_imports_flow_one_way():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import(tmp_path, monkeypatch):
    fake = tmp_path / "xalign"
    (fake / "core").mkdir(parents=True)
    (fake / "core" / "bad.py").write_text("from xalign.book.results import ChapterRun\nfrom ..measures import x\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", fake)
    assert len(upward_imports()) == 2


def test_the_check_sees_the_card_borrow_from_a_paper(tmp_path, monkeypatch):
    fake = tmp_path / "xalign"
    (fake / "card").mkdir(parents=True)
    (fake / "card" / "bad.py").write_text("def step():\n    from xalign.papers.liu2020.anchors import anchors\n"
                                          "from xalign.measures.mapping import fit_alignment\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", fake)
    assert upward_imports() == ["card/bad.py borrows from a paper: xalign.papers.liu2020.anchors"]


def test_the_check_sees_the_test_fixtures_imported_or_importing_upward(tmp_path, monkeypatch):
    fake = tmp_path / "xalign"
    (fake / "core").mkdir(parents=True)
    (fake / "testing").mkdir()
    (fake / "core" / "bad.py").write_text("from xalign.testing.tiny import build_tiny_model\n")
    (fake / "testing" / "bad.py").write_text("from xalign.measures.retrieval import s_weak\nfrom xalign.core import x\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", fake)
    assert sorted(upward_imports()) == ["core/bad.py imports the test fixtures: xalign.testing.tiny",
                                        "testing/bad.py imports xalign.measures.retrieval"]


def module_name(path: pathlib.Path) -> str:
    """``measures/retrieval.py`` -> ``measures.retrieval``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the xalign modules it imports, at module level or inside a function (``xalign/__init__``,
    the lazy package face, left out). ``from xalign.measures import retrieval`` imports the submodule."""
    files = {module_name(f): f for f in ROOT.rglob("*.py")}
    files.pop("", None)
    graph = {}
    for name, f in files.items():
        is_package = f.name == "__init__.py"
        package = name.split(".") if is_package else name.split(".")[:-1]
        edges = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                elif node.module and node.module.startswith("xalign."):
                    base = node.module[len("xalign."):]
                elif node.module == "xalign":
                    base = ""
                else:
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}" if base else alias.name
                    edges.add(sub if sub in files else base)
            elif isinstance(node, ast.Import):
                edges |= {a.name[len("xalign."):] for a in node.names if a.name.startswith("xalign.")}
        graph[name] = {m for m in edges if m in files and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]] | None = None) -> list[list[str]]:
    """The import circles among the modules: each strongly connected group of two or more (Tarjan)."""
    graph = import_graph() if graph is None else graph
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    assert import_cycles() == []


def test_the_check_sees_a_circle_through_a_function_level_import(tmp_path, monkeypatch):
    fake = tmp_path / "xalign"
    (fake / "core").mkdir(parents=True)
    (fake / "core" / "__init__.py").write_text("")
    (fake / "core" / "a.py").write_text("from xalign.core import b\n")
    (fake / "core" / "b.py").write_text("def f():\n    from xalign.core.c import g\n")
    (fake / "core" / "c.py").write_text("def g():\n    from . import a\n")
    (fake / "core" / "d.py").write_text("import xalign.core.a\n")  # on the way in, not in the circle
    monkeypatch.setattr(__import__(__name__), "ROOT", fake)
    assert import_cycles() == [["core.a", "core.b", "core.c"]]


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


def test_every_paper_has_the_same_shape():
    """Each paper package runs its chapter from ``experiments``, words it in ``report``, draws it in ``figures``."""
    from xalign.papers.meta import PAPERS

    missing = [f"papers/{p}/{m}.py" for p in PAPERS for m in ("experiments", "report", "figures")
               if not (ROOT / "papers" / p / f"{m}.py").is_file()]
    assert missing == []


def test_the_book_names_no_chapter_parameter():
    """The chapter registry (titles, the parameters naming a chapter's encoder) is the papers' data (paper.yaml,
    read through xalign.papers.meta), not the book's."""
    import re

    words = re.compile(r"\b(table1_models|multi_model|CHAPTERS)\b")
    found = [f"{f.relative_to(ROOT)}:{i}" for f in sorted((ROOT / "book").rglob("*.py"))
             for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if words.search(line)]
    assert found == []
