"""A verdict for every claim: the papers' declared claims, judged on a chapter's results by one function."""

import json
import re
from pathlib import Path

import pytest

from xalign.book import claims as CL
from xalign.book import landing as LP
from xalign.book import ledger as L
from xalign.book.results import ChapterRun
from xalign.measures.verdicts import HELD, NOT_HELD, NOT_TESTABLE
from xalign.papers import meta

ROOT = Path(__file__).resolve().parents[1]


def _reference(paper: str) -> dict:
    return json.loads((ROOT / "reference" / f"{meta.metadata(paper)['chapter']}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_every_declared_claim_gets_a_verdict_on_the_committed_reference(paper):
    declared = CL.claims(paper)
    assert 1 <= len(declared) <= 3  # the paper's main claims, not every cell
    rows = CL.judge_claims(paper, _reference(paper))
    assert {r.claim_id for r in rows} == {c["id"] for c in declared}
    for c in declared:
        assert sum(r.claim_id == c["id"] for r in rows) == len(c.get("cases") or [{}])  # one row per case
    for r in rows:
        assert r.verdict in (HELD, NOT_HELD, NOT_TESTABLE) and r.reason, r
        assert r.shows == "–" or re.search(r"\d", r.shows)  # a number (and its interval) behind each verdict
    # every link target is a label the chapter defines
    source = (ROOT / "notebooks" / f"{meta.metadata(paper)['chapter']}.py").read_text(encoding="utf-8")
    for c in declared:
        assert f"# ({c['link']})=" in source, c["link"]


def test_the_reference_verdicts_follow_the_numbers():
    """Spot checks against the committed reference numbers (not a hard-coded list: each verdict follows
    from the numbers in the row, read here from the reference file itself)."""
    rows = {(r.claim_id, r.case): r for r in CL.judge_claims("gaschi2022", _reference("gaschi2022"))}
    assert rows[("weak-over-strong", "de-en")].verdict == HELD  # S_strong 85.6 vs S_weak 95.8, tight intervals
    assert rows[("last-layer-drop", "de-en")].verdict == NOT_HELD  # e5-small peaks at its last layer
    liu = CL.judge_claims("liu2020", _reference("liu2020"))
    absent = [r for r in liu if r.claim_id == "independent-beats-shared"]
    assert absent and absent[0].verdict == NOT_TESTABLE and "mono_en->mono_zh" in absent[0].reason


def _run(rows: list[dict], table: str = "mlp_lr_gap") -> dict:
    return {"paper": "nyholm2020", "chapter": "05_feature_based_transfer", "tables": {table: {"rows": rows}}}


def _gap(lang: str, value: float, lo: float, hi: float, smin: float, smax: float) -> dict:
    return {"lang": lang, "MLP − LR": value, "MLP − LR CI lo": lo, "MLP − LR CI hi": hi,
            "MLP − LR seed min": smin, "MLP − LR seed max": smax}


def test_a_hand_built_interval_gives_held_did_not_hold_and_not_testable(tmp_path):
    """The MLP-above-LR claim (expected: up), no variation file (margin 0)."""
    def verdict(row):
        return next(r for r in CL.judge_claims("nyholm2020", _run([row]), reference=tmp_path) if r.claim_id == "mlp-above-lr" and r.case == "en")

    assert verdict(_gap("en", 3.0, 1.0, 5.0, 0.5, 4.0)).verdict == HELD  # excludes zero the paper's way
    assert verdict(_gap("en", -3.0, -5.0, -1.0, -4.0, -0.5)).verdict == NOT_HELD  # the other way
    straddle = verdict(_gap("en", 1.0, -1.0, 3.0, -0.5, 2.0))
    assert straddle.verdict == NOT_TESTABLE and "both" in straddle.reason
    seeds = verdict(_gap("en", 3.0, 1.0, 5.0, -1.0, 4.0))  # interval up, but one seed goes the other way
    assert seeds.verdict == NOT_TESTABLE and "seeds" in seeds.reason
    missing = next(r for r in CL.judge_claims("nyholm2020", _run([]), reference=tmp_path) if r.claim_id == "mlp-above-lr" and r.case == "en")
    assert missing.verdict == NOT_TESTABLE and missing.shows == "–" and missing.reason


def test_the_measured_tolerance_is_the_margin(tmp_path):
    (tmp_path / "05_feature_based_transfer.variation.yaml").write_text(
        "tables:\n  mlp_lr_gap:\n    tolerance: 2.0\n    source: the largest seed range\n", encoding="utf-8")
    row = _gap("en", 3.0, 1.0, 5.0, 0.5, 4.0)  # lo 1.0 lies above zero but inside the 2-point margin
    r = next(r for r in CL.judge_claims("nyholm2020", _run([row]), reference=tmp_path) if r.claim_id == "mlp-above-lr" and r.case == "en")
    assert r.verdict == NOT_TESTABLE and "noise margin 2:" in r.reason
    assert CL.margin("05_feature_based_transfer", "mlp_lr_gap", tmp_path)[0] == 2.0
    assert CL.margin("05_feature_based_transfer", "table6", tmp_path)[0] == 0.0  # not listed: no margin


def test_separate_intervals_and_layer_curves(tmp_path):
    def curve(pair, values):
        return [{"pair": pair, "layer": i, "mean": v, "ci95": 0.5} for i, v in enumerate(values)]

    weak = curve("de-en", [40, 60, 90, 80]) + curve("ru-en", [40, 60, 70, 80])
    strong = curve("de-en", [30, 50, 70, 60]) + curve("ru-en", [40, 60, 70, 90])
    res = {"paper": "gaschi2022", "tables": {"Fig. 6": {"rows": weak}, "Fig. 7": {"rows": strong}}}
    rows = {(r.claim_id, r.case): r for r in CL.judge_claims("gaschi2022", res, reference=tmp_path)}
    assert rows[("weak-over-strong", "de-en")].verdict == HELD  # best S_strong 70 below best S_weak 90
    assert rows[("weak-over-strong", "ru-en")].verdict == NOT_HELD  # 90 above 80
    assert rows[("last-layer-drop", "de-en")].verdict == HELD  # last 80 below the best earlier 90
    assert rows[("last-layer-drop", "ru-en")].verdict == NOT_HELD  # the last layer is the best
    assert rows[("weak-over-strong", "zh-en")].verdict == NOT_TESTABLE  # the run has no zh-en curve


def test_a_running_chapter_is_judged_like_its_saved_result(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    import pandas as pd

    run = ChapterRun("05_feature_based_transfer", "nyholm2020", "default", {"model": "multilingual-e5-small"})
    run.record("mlp_lr_gap", pd.DataFrame([_gap("en", 3.0, 1.0, 5.0, 0.5, 4.0)]))
    saved = json.loads(run.save().read_text(encoding="utf-8"))
    assert CL.judge_claims("nyholm2020", run, tmp_path) == CL.judge_claims("nyholm2020", saved, tmp_path)


def test_bad_claims_are_named(monkeypatch):
    md = dict(meta.metadata("nyholm2020"))
    md["claims"] = [dict(md["claims"][0], expected="sideways")]
    monkeypatch.setattr(meta, "metadata", lambda p: md)
    with pytest.raises(ValueError, match=r"paper\.yaml: claim 'features-below-fine-tuned'.*'up' or 'down'"):
        CL.claims("nyholm2020")
    md["claims"] = [{**md["claims"][0], "expected": "down", "items": ["Table 99"]}]
    with pytest.raises(ValueError, match="Table 99"):
        CL.claims("nyholm2020")


def test_the_chapter_table_is_myst_with_caption_label_and_links():
    md = CL.verdict_table(_reference("wickramasinghe"))
    assert md.startswith("```{table} The paper's main claims") and ":name: ch04-claims" in md
    assert "| The paper's claim | Case | What our run shows | Verdict | Why | See |" in md
    assert "{ref}`Table\u00a03 <ch04-table3>`" in md and "**held**" in md
    assert "<td" not in md and "None" not in md
    # every chapter notebook shows it, in its "What the evidence supports" section
    for paper in meta.PAPERS:
        source = (ROOT / "notebooks" / f"{meta.metadata(paper)['chapter']}.py").read_text(encoding="utf-8")
        section = source.split("## What the evidence supports", 1)[1]
        assert "claims.verdict_table(run)" in section, paper


def test_the_landing_page_gives_each_chapter_s_main_claim_and_its_verdict():
    page = LP.landing_markdown("default", public=False)  # a fresh clone: the committed reference run
    lines = [line for line in page.splitlines() if line.startswith("**The main claim, judged.**")]
    assert len(lines) == len(meta.PAPERS)
    for paper, line in zip(meta.PAPERS, lines):
        assert CL.claims(paper)[0]["claim"] in line
        assert re.search(r"\*\*(held|did not hold|not testable)\*\*", line)


def test_the_ledger_judges_what_a_claim_rests_on_and_says_why_not_elsewhere():
    rows = L.ledger("default")
    judged = [r for r in rows if r["status"] == "other model, claims judged"]
    assert judged and all(re.search(r"claim cases?: ", r["summary"]) for r in judged)
    for r in rows:
        if r["status"] == "other model":  # what cannot be judged says why and what it would need
            assert "not judged: " in r["summary"] and ("needs" in r["summary"] or "need" in r["summary"]), r
    bli = {r["item"]: r for r in rows if r["paper"] == "bli"}
    assert bli["Table 3"]["status"] == "other model, claims judged"


def test_the_verdict_table_keeps_its_structure_and_escapes_its_cells(capsys):
    """The table is MyST structure (a {table} directive, pipes, {ref} links): display.prose's safety net
    would show it as literal text, so the chapters show it with display.myst; its cells are page text."""
    import re
    from pathlib import Path

    from xalign.book.claims import ClaimRow, claims_markdown
    from xalign.core.markup import inert

    fields = ClaimRow.__dataclass_fields__
    row = ClaimRow(**{k: "x" for k in fields})
    row = ClaimRow(**{**row.__dict__, "claim": "<script>alert(1)</script> | x", "shows": "[a](javascript:b)"})
    md = claims_markdown([row], "Claims", "ch01-claims", labels=None, chapter="01_weak_strong_alignment")
    assert md.startswith("```{table} Claims") and "| The paper's claim |" in md
    assert "<script" not in md and "](javascript:" not in md
    assert "```{table}" not in inert(md)  # why prose cannot carry it
    root = Path(__file__).resolve().parents[1] / "notebooks"
    for nb in sorted(root.glob("0[1-5]_*.py")):
        text = nb.read_text(encoding="utf-8")
        assert not re.search(r"display\.prose\(claims\.verdict_table", text), nb.name
        assert "claims.verdict_table(run)" in text, nb.name
