"""Chapter 3's page: the notebook's shape (fast, from its source) and its smoke run (from the shared book build)."""

import ast
import re
from pathlib import Path

import pytest
import yaml

from conftest import smoke_results

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "03_calibrated_retrieval_transfer_rate.py"
PAPER_YAML = Path(__file__).resolve().parents[1] / "lib" / "xalign" / "papers" / "calibrated2023" / "paper.yaml"


def _cells(text: str) -> list[tuple[str, str]]:
    """(header line, body) of every py:percent cell."""
    parts = re.split(r"^(# %%.*)$", text, flags=re.MULTILINE)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def _anchor(item: dict) -> str:
    key = item.get("key") or item["id"].lower().replace(".", "").replace(" ", "")
    return "ch03-" + key.lower().replace("_", "-")


def test_notebook_only_calls_the_library_and_is_short():
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 350
    tree = ast.parse(text)
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While, ast.comprehension))]
    for loop in loops:  # a display loop: a for loop whose every statement is one display.* call
        body = loop.body if isinstance(loop, ast.For) else []
        shown = [s for s in body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                 and isinstance(s.value.func, ast.Attribute) and isinstance(s.value.func.value, ast.Name)
                 and s.value.func.value.id == "display"]
        assert body and shown == body and len(body) <= 2, f"line {loop.lineno}: not a display loop"
    assert "print(" not in text


def test_page_order_labels_and_figures():
    text = NOTEBOOK.read_text(encoding="utf-8")
    cells = _cells(text)
    headers = [h for h, _ in cells]
    assert headers.count('# %% tags=["show-input"]') == 1
    assert headers.index('# %% tags=["parameters"]') < headers.index('# %% tags=["show-input"]')
    assert "{cite}`calibrated2023`" in cells[0][1] and "What differs from the paper" in cells[0][1]
    assert "# ## What the evidence supports" in text
    # every item of the paper's ledger has its anchor on the line before a heading
    items = yaml.safe_load(PAPER_YAML.read_text(encoding="utf-8"))["items"]
    for item in items:
        assert re.search(rf"^# \({_anchor(item)}\)=\n# #+ ", text, flags=re.MULTILINE), _anchor(item)
    # each stored figure is placed by a glue:figure with a name and a bold caption
    glued = re.findall(r'display\.figure\("([\w-]+)"', text)
    assert "ch03-fig2" in glued and len(glued) == len(set(glued)) >= 5
    for name in glued:
        assert re.search(rf"```{{glue:figure}} {name}\n# :name: fig-{name}\n(?:#\n)?# \*\*", text), name
    assert re.search(r"\*\*Paper's Fig\. 2\.\*\*", text)
    # generated prose shows without its code; the headline is set before the save
    for header, body in cells:
        if "display.prose(" in body:
            assert header == '# %% tags=["remove-input"]', body
    # display.table / display.prose return what they show: as a cell's last expression it would show twice
    for header, body in cells:
        code = body.strip()
        if not header.startswith("# %% [markdown]") and code:
            last = ast.parse(code).body[-1]
            if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and ast.unparse(
                    last.value.func) in ("display.table", "display.prose"):
                assert code.endswith(";"), code[-120:]
    assert text.index("run.set_headline(") < text.index("run.save()")
    assert 'key_figure="ch03-fig2"' in text


@pytest.mark.slow
def test_chapter03_smoke_results(built_book):
    res = smoke_results(built_book, "03_calibrated_retrieval_transfer_rate")
    tables = res["tables"]
    for name in ("table1", "table5", "table6", "table9"):
        assert tables[name]["n_matched"] > 0, name
    assert tables["table7"]["status"] == "not run here"
    curves = tables["layer_curves"]["rows"]
    assert curves and all(0.0 <= r["value"] <= 100.0 for r in curves)
    assert tables["table1_changes"]["rows"]
    # known answers: identical sentences retrieve each other, the paper's own arithmetic holds
    known = tables["known_answers"]["rows"]
    assert len(known) >= 3 and all(r["ok"] for r in known)
    assert any(r["got"] == 100.0 for r in known)
    # every compared number we produce carries an interval that contains it
    for name in ("table1", "table5", "table6", "table9", "table2"):
        ours = [r for r in tables[name]["rows"] if r.get("ours") is not None and r.get("ci_lo") is not None]
        assert ours, name
        assert all(r["ci_lo"] - 1e-9 <= r["ours"] <= r["ci_hi"] + 1e-9 for r in ours), name
    # the layer chosen before fine-tuning is the one every checkpoint is read at
    layers = {r["layer"] for r in tables["checkpoints"]["rows"]}
    assert len(layers) == 1
    # the headline: one sentence with an interval, and the key figure
    assert "95% CI" in res["headline"] and res["key_figure"] == "ch03-fig2"


@pytest.mark.slow
def test_chapter03_page_shows_no_raw_frames_nan_or_prints(built_book):
    import json

    nb = json.loads((built_book[0] / "book" / "chapters" / "03_calibrated_retrieval_transfer_rate.ipynb").read_text())
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "stream" or out.get("name") == "stderr", out
            html = "".join(out.get("data", {}).get("text/html", []))
            plain = "".join(out.get("data", {}).get("text/plain", []))
            assert "dataframe" not in html and not re.search(r"\bnan\b", html + plain, flags=re.IGNORECASE)
