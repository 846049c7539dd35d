"""Chapter 4: the page's source, and its smoke run (from the shared book build) fills its tables."""

import pytest

from conftest import smoke_results


@pytest.mark.slow
def test_chapter04_smoke_results(built_book):
    res = smoke_results(built_book, "04_bli_pruning_stemming")
    assert {"table1", "table2", "table3", "table4", "table5", "table6"} <= set(res["tables"])
    assert res["tables"]["table2"]["n_matched"] > 0
    assert res["tables"]["table1"]["n_matched"] > 0
    assert (built_book[2] / "book" / "chapters" / "04_bli_pruning_stemming.html").exists()
    # known answer: a space mapped onto itself translates every word to itself
    checks = res["tables"]["known_answers"]["rows"]
    assert checks and all(r["value"] == r["expected"] == 100.0 for r in checks)
    # every P@k of ours carries an interval that contains it, and its coverage
    for row in res["tables"]["table2"]["rows"]:
        if row["ours"] is not None:
            assert row["lo"] <= row["ours"] <= row["hi"] and row["coverage"] is not None
    # the old Sinhala list is measured against fastText's, and X->En has source-pruned rows
    assert res["tables"]["sinhala_list_inflation"]["rows"]
    t1 = res["tables"]["table1"]["rows"]
    assert any(r["direction"] == "X-En" and r["lang"] == "zh" and r["pruned"] for r in t1)


def test_chapter04_notebook_only_calls_the_library():
    """The page's source: under 350 lines, no loop, one show-input cell, figures glued with the paper's
    figure number, an anchor per table of paper.yaml, no process text."""
    import re
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    text = (root / "notebooks" / "04_bli_pruning_stemming.py").read_text()
    assert len(text.splitlines()) < 350
    code = [c for c in re.split(r"^# %%.*$", text, flags=re.MULTILINE) if not c.lstrip().startswith("# ")]
    assert not any(re.search(r"^\s*(for|while) ", c, flags=re.MULTILINE) for c in code)
    assert text.count('# %% tags=["show-input"]') == 1 and "print(" not in text
    for name in re.findall(r'display\.figure\("(ch04-[a-z0-9-]+)"', text):
        assert re.search(r"```\{glue:figure\} " + name + r"\n# :name: fig-" + name + r"\n#\n# \*\*Paper's Fig\. \d",
                         text), name
    meta = yaml.safe_load((root / "lib/xalign/papers/wickramasinghe/paper.yaml").read_text())
    for item in meta["items"]:
        if item["kind"] == "table":
            assert f"(ch04-{item['key'].lower().replace('_', '-')})=" in text, item["key"]
    assert "## What the evidence supports" in text and "run.set_headline(" in text
    for process in ("What changed", "AMX", "Zen", "this machine", "An earlier version"):
        assert process not in text
