"""Chapter 2: the smoke run's values (from the shared book build), and the page: the notebook only calls
the library, the generated prose and headline are worded from the numbers, the figures read cleanly."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import smoke_results
from notebook_pages import assert_only_calls, code_cells


def check_chapter02(res: dict) -> None:
    """Value checks on chapter 2's results (known answers and the audit's invariants)."""
    t = res["tables"]
    assert t["table3"]["n_matched"] > 0 and t["table4"]["n_matched"] > 0
    stats = t["btsr_set"]["rows"][0]
    assert 0 < stats["test_pairs"] <= stats["test_pairs_ranked_among_items"] <= stats["contextualized_pairs"]
    assert stats["same_form_candidates"] is True
    assert stats["candidates"] <= stats["candidates_requested"]
    # known answers on the run's own vectors
    checks = t["known_answers"]["rows"]
    assert checks and all(r["ok"] for r in checks)
    for r in checks:
        assert r["got"] == pytest.approx(r["expected"], abs=1e-3), r["check"]
    # the front page's sentence: one number with its interval, from the run
    assert res["key_figure"] == "ch02-fig3-points"
    assert re.search(HEADLINE, res["headline"]), res["headline"]
    # the unmapped space is shown raw and centred; every P@k is a fraction
    original = t["original_space"]["rows"]
    assert sorted(r["centred"] for r in original) == [False, True]
    for r in t["grid"]["rows"] + original:
        for k in ("btsr_p1", "btsr_p5"):
            if r.get(k) is not None:
                assert 0.0 <= r[k] <= 1.0
        if r.get("btsr_p1") is not None:
            assert r["btsr_p1"] <= r["btsr_p5"] + 1e-12
    # the audit's before/after: the selection can only keep fewer pairs; coverage is a fraction
    ba = {(r["change"][:2].strip(), r["measure"]): r for r in t["before_after"]["rows"]}
    sel = ba[("8", "test pairs")]
    assert sel["after"] == stats["test_pairs"] and sel["before"] == stats["test_pairs_ranked_among_items"]
    assert 0 < ba[("6", "BTSR queries with a type vector")]["after"] <= 100
    # the word-form ceiling: P@5 of a word-form-only retriever; every map beside the unmapped space
    for wf in t["btsr_word_form"]["rows"]:
        assert wf["word-form ceiling P@1 (%)"] <= wf["word-form ceiling P@5 (%)"] <= 100
        if wf["most candidates sharing a gold's form"] <= 5:
            assert wf["word-form ceiling P@5 (%)"] == pytest.approx(100.0)
    every = t["btsr_every_map"]["rows"]
    grid = {(r["variant"], r["method"], r["n"]): r for r in t["grid"]["rows"]}
    for r in every:
        if r["method"] != "no mapping (centred)":  # the same fits as the grid's
            assert r["P@5 (%)"] == pytest.approx(100 * grid[(r["variant"], r["method"], r["n"])]["btsr_p5"])
    # BL(word) never scores a word without a training vector: no zero-vector row, covered rows on fewer items
    base = {r["baseline"]: r for r in t["baselines"]["rows"]}
    assert "BL(word) avg_type [type]" not in base
    miss, cov = base["BL(word) avg_type [type], no vector = miss"], base["BL(word) avg_type [type], covered items"]
    assert cov["n_items"] <= miss["n_items"] == stats["test_pairs"]
    assert miss["btsr_p5"] == pytest.approx(cov["btsr_p5"] * cov["n_items"] / miss["n_items"])
    # Table 3 is the mean over the seeds of the per-seed cells, with their spread; the first seed is the grid's
    seeds = res["params"]["seeds"]
    keys = ("variant", "level", "signal", "technique")
    per_seed = {tuple(r[k] for k in keys): r for r in t["table3_seeds"]["rows"] if r["measure"] == "P@5"}
    for r in t["table3"]["rows"]:
        if r.get("ours") is None or r["ours"] != r["ours"]:
            continue
        s = per_seed[tuple(r[k] for k in keys)]
        values = [s[f"seed {x}"] for x in seeds]
        assert r["ours"] == pytest.approx(np.mean(values)) and s["n_seeds"] == len(seeds)
        assert (r["seed min"], r["seed max"]) == (pytest.approx(min(values)), pytest.approx(max(values)))
        first = grid[(r["variant"], f"{r['level']} {r['signal']} {r['technique']}", max(
            n for (v, m, n) in grid if v == r["variant"] and m.startswith(r["level"] + " " + r["signal"])))]
        assert values[0] == pytest.approx(100 * first["btsr_p5"])


#: the headline's number: the seed mean with its range and the first seed's interval, or one seed's, named
HEADLINE = (r"\d+\.\d % of [\d,]+ English test words (on average over \d+ seeds \(BTSR P@1, from \d+\.\d to "
            r"\d+\.\d %; the first seed's 95% CI over the test words \[\d+\.\d, \d+\.\d\]\)|\(BTSR P@1, first seed, "
            r"95% CI \[\d+\.\d, \d+\.\d\]\))")


@pytest.mark.slow
def test_chapter02_smoke_results(built_book):
    check_chapter02(smoke_results(built_book, "02_btsr_contextual_alignment"))


# --------------------------------------------------------------------------- the page (fast: no run needed)
NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "02_btsr_contextual_alignment.py"


def test_notebook_is_short_and_only_calls_the_library():
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert_only_calls(text)
    assert not any(cell.strip().endswith("P") for cell in code_cells(text))
    assert text.count('tags=["show-input"]') == 1
    assert "run.set_headline(" in text and text.index("run.set_headline(") < text.index("run.save()")
    assert "## What the evidence supports" in text
    # process text lives in the errata, not on the page
    for phrase in ("What changed in this version", "50 times less", "15-35", "not installable here"):
        assert phrase not in text, phrase


def test_notebook_labels_the_paper_items_and_captions_every_figure():
    text = NOTEBOOK.read_text(encoding="utf-8")
    for label in ("ch02-table3", "ch02-table4", "ch02-fig3-points", "ch02-fig-1", "ch02-fig-2"):
        assert f"# ({label})=\n# #" in text, label
    names = re.findall(r'display\.figure\("([^"]+)"', text)
    assert names
    for name in names:
        assert f"# ```{{glue:figure}} {name}\n# :name: fig-{name}\n#\n# **Paper's Fig." in text, name


def _grid(variant="multi_en->multi_zh", n=4428, avg_mim=0.746, avg_orig=0.715, dict_orig=0.715, sr=0.953):
    rows = []
    for level in ("token", "avg_type", "iso_type"):
        for signal in ("wa", "sa"):
            for tech in ("orig", "mim"):
                p5 = 0.70
                if (level, signal) == ("avg_type", "wa"):
                    p5 = avg_mim if tech == "mim" else avg_orig
                rows.append({"variant": variant, "level": level, "signal": signal, "technique": tech, "n": n,
                             "btsr_p1": p5 / 2, "btsr_p5": p5, "sr_token": sr})
    for level in ("avg_type", "iso_type"):
        for tech in ("orig", "mim"):
            rows.append({"variant": variant, "level": level, "signal": "dict", "technique": tech, "n": 0,
                         "btsr_p1": 0.35, "btsr_p5": dict_orig if level == "avg_type" and tech == "orig" else 0.7,
                         "sr_token": 0.9})
    g = pd.DataFrame(rows)
    g["method"] = g["level"] + " " + g["signal"] + " " + g["technique"]
    return g


def _fixtures(**kw):
    g = _grid(**kw)
    largest = pd.Series({"multi_en->multi_zh": 4428})
    original = pd.DataFrame([{"variant": "multi_en->multi_zh", "centred": c, "btsr_p1": 0.35, "btsr_p5": 0.70,
                              "sr_token": 0.95, "sr_type": 0.7, "bcws": 0.62, "scws": 0.67} for c in (False, True)])
    base = pd.DataFrame([{"variant": "multi_en->multi_zh", "baseline": "BL(word) avg_type [type]", "btsr_p5": 0.5}])
    stats = pd.DataFrame([{"pair": "en-zh", "candidates": 8000, "test_pairs": 347}])
    paper_t3 = pd.DataFrame({"value": [14.8, 35.4, 20.0]})
    return g, original, base, largest, stats, paper_t3


def test_times_less_is_computed_not_typed():
    from xalign.papers.liu2020.report import times_less

    assert times_less([4428, 4413]) == "45 times less"
    assert times_less([4428, 2000]) == "45-100 times less"
    assert times_less([]) == "no training text to compare"


def _p1_fixtures(**kw):
    """The fixtures with P@1 = the P@5 values above (the claims are judged on P@1) and BL(word) on covered items."""
    g, original, _, largest, stats, paper_t3 = _fixtures(**kw)
    base = pd.DataFrame([{"variant": "multi_en->multi_zh", "baseline": b, "btsr_p1": p, "btsr_p5": 1.0, "n_items": 330}
                         for b, p in (("BL(word) avg_type [type], covered items", 0.5),
                                      ("avg_type wa mim [token], covered items", kw.get("avg_mim", 0.746)))])
    return g.assign(btsr_p1=g.btsr_p5), original.assign(btsr_p1=original.btsr_p5), base, largest, stats, paper_t3


def _runs(*fixtures):
    """seed -> SeedRun from the fixtures' (grid, original, base, largest), seeds 0, 1, ..."""
    from xalign.papers.liu2020.seeds import SeedRun

    return {s: SeedRun(f[0], f[1], f[2], f[3]) for s, f in enumerate(fixtures)}


def test_evidence_states_only_differences_of_one_sign_for_every_seed():
    from xalign.papers.liu2020.report import evidence

    *_, stats, paper_t3 = _p1_fixtures()
    text = evidence(_runs(_p1_fixtures()), ["multi_en->multi_zh"], stats, paper_t3, model="my/encoder")
    assert "14.8-35.4 %" in text and "45 times less" in text and "en-zh: 8,000" in text
    # the model the run used, named and set against the paper's (not the default argument's name)
    assert "a different model (my/encoder, not the paper's mBERT)" in text and "multilingual-e5-small" not in text
    own = evidence(_runs(_p1_fixtures()), ["multi_en->multi_zh"], stats, paper_t3, model="bert-base-multilingual-cased")
    assert "the paper's own model (bert-base-multilingual-cased)" in own and "a different model" not in own
    assert "**One seed (0).**" in text and "spread is not measured" in text
    # one seed: +3.1 points is that seed's finding, said to rest on one seed
    assert "MIM on `avg_type wa`: it helps (+3.1 points, one seed)" in text
    # context, on the items whose words have a training vector: 74.6 vs BL(word) 50.0 = +24.6 points
    assert "on the 330 items whose query and gold have a training vector): context helps (+24.6 points" in text
    assert "BTSR P@1 unless stated" in text
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    # equal levels are said to be equal, never "differ by +0.0"
    tie = evidence(_runs(_p1_fixtures(avg_mim=0.70, avg_orig=0.70, dict_orig=0.70)), ["multi_en->multi_zh"], stats,
                   paper_t3)
    assert "+0.0" not in tie and "-0.0" not in tie and "no difference: with and without MIM score the same" in tie
    # three seeds that agree: a finding, with the mean and the range over the seeds
    three = evidence(_runs(_p1_fixtures(), _p1_fixtures(avg_mim=0.80), _p1_fixtures(avg_mim=0.72)),
                     ["multi_en->multi_zh"], stats, paper_t3)
    assert "**3 seeds (0, 1, 2).**" in three and "spread is 0 by construction" in three
    assert "MIM on `avg_type wa`: it helps (+4.0 points, from +0.5 to +8.5 over 3 seeds)" in three


def test_a_claim_becomes_unstable_when_one_seed_disagrees():
    from xalign.papers.liu2020.report import evidence

    _, _, _, _, stats, paper_t3 = _p1_fixtures()
    agree = [_p1_fixtures(avg_mim=0.80), _p1_fixtures(avg_mim=0.78)]
    text = evidence(_runs(*agree), ["multi_en->multi_zh"], stats, paper_t3)
    assert "MIM on `avg_type wa`: it helps (+7.5 points, from +6.5 to +8.5 over 2 seeds)" in text
    # a third seed where MIM hurts (P@1 70.0 against 71.5 without it): the claim is unstable
    text = evidence(_runs(*agree, _p1_fixtures(avg_mim=0.70)), ["multi_en->multi_zh"], stats, paper_t3)
    assert "MIM on `avg_type wa`: unstable: with and without MIM differ by from -1.5 to +8.5 over 3 seeds, a sign " \
           "that changes with the seed" in text
    assert "it helps" not in text.split("MIM on `avg_type wa`")[1].split(";")[0]
    # the other claims, the same for every seed, stay findings
    assert "BTSR against sentence retrieval (`avg_type wa mim`, both P@5): BTSR is the harder task (" in text


def test_across_seeds_words_the_sign_of_every_seed():
    from xalign.papers.liu2020.seeds import across_seeds

    assert across_seeds([1.0, 2.0, 3.0], "up", "down", "x") == "up (+2.0 points, from +1.0 to +3.0 over 3 seeds)"
    assert across_seeds([-1.0, -3.0], "up", "down", "x") == "down (-2.0 points, from -3.0 to -1.0 over 2 seeds)"
    assert across_seeds([2.0, 2.01], "up", "down", "x") == "up (+2.0 points, the same for each of the 2 seeds)"
    assert across_seeds([1.0, -0.5, 3.0], "up", "down", "x").startswith("unstable: x differ by from -0.5 to +3.0")
    assert across_seeds([1.0, 0.0], "up", "down", "x").startswith("unstable")  # a zero is not the same sign
    assert across_seeds([0.01, -0.02], "up", "down", "x").startswith("no difference")
    assert across_seeds([1.0, float("nan")], "up", "down", "x").startswith("unstable: x could not be scored")
    with pytest.raises(ValueError, match="no seed"):
        across_seeds([], "up", "down", "x")


def test_headline_gives_p1_with_a_wilson_interval_over_the_test_pairs():
    from scipy.stats import binomtest

    from xalign.papers.liu2020.report import headline

    g, _, _, largest, stats, _ = _fixtures()
    line = headline(g, largest, stats, "multi_en->multi_zh", "multilingual-e5-small")
    ci = binomtest(round(0.373 * 347), 347).proportion_ci(method="wilson")
    assert f"37.3 % of 347 English test words (BTSR P@1, first seed, 95% CI [{100 * ci.low:.1f}, {100 * ci.high:.1f}])" in line
    assert "8,000 en-zh candidates" in line and "first seed, 95% CI" in line and re.search(HEADLINE, line)
    seeds = pd.DataFrame([{"variant": "multi_en->multi_zh", "level": "avg_type", "signal": "wa", "technique": "mim",
                           "measure": m, "mean": v, "min": v - 1.5, "max": v + 1.0, "n_seeds": 3}
                          for m, v in (("P@1", 36.2), ("P@5", 70.0))])
    line = headline(g, largest, stats, "multi_en->multi_zh", "multilingual-e5-small", table3_seeds=seeds)
    # the seed mean is the number the sentence leads with, not the first seed's 37.3
    assert "36.2 % of 347 English test words on average over 3 seeds (BTSR P@1, from 34.7 to 37.2 %" in line
    assert f"the first seed's 95% CI over the test words [{100 * ci.low:.1f}, {100 * ci.high:.1f}]" in line
    assert re.search(HEADLINE, line)
    assert headline(g, largest, stats.assign(pair="en-es"), "multi_en->multi_zh", "m") == ""


def test_wordsim_note_and_tables_show_units_and_no_nan():
    from xalign.book.display import table_html
    from xalign.papers.liu2020.report import original_shown, shown, wordsim_note

    assert wordsim_note(1000, 2091, 1000, 2003) == ("This run scores 1,000 of 2,091 BCWS items and 1,000 of 2,003 "
                                                     "SCWS pairs (where it uses fewer, each seed draws its own random "
                                                     "sample; the first seed's is named here).")
    assert wordsim_note(2091, 2091, 50, 2003).startswith("This run scores all 2,091 BCWS items and 50 of 2,003")
    _, original, *_ = _fixtures()
    shown_o = original_shown(original.assign(bcws=np.nan))
    assert "BTSR P@5 (%)" in shown_o.columns and shown_o["BTSR P@5 (%)"].iloc[0] == 70.0
    html = table_html(shown_o)
    assert "nan" not in html.lower()
    t3 = shown(pd.DataFrame({"variant": ["a"], "paper": [30.0], "ours": [np.nan], "diff": [np.nan]}))
    assert list(t3.columns) == ["variant", "paper (P@5 %)", "ours (P@5 %)", "diff (ours − paper, points)"]


def test_curve_plot_puts_ticks_at_the_sizes_and_the_legend_outside():
    import matplotlib

    matplotlib.use("Agg")
    from xalign.papers.liu2020.figures import curve_plot

    g = pd.concat([_grid(n=n) for n in (100, 500, 1000, 2000, 4428)], ignore_index=True)
    points = pd.DataFrame([{"variant": "multi_en->multi_zh", "method": "avg_type wa orig", "n": 100, "value": 34.07}])
    fig = curve_plot(g, "btsr_p5", "BTSR P@5 (%)", ["multi_en->multi_zh"], paper_points=points)
    fig.canvas.draw()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["100", "500", "1,000", "2,000", "4,428"]
    assert not [t for t in ax.get_xticklabels(minor=True) if t.get_text()]
    assert ax.get_legend() is None and fig.legends
    assert fig.legends[0].get_window_extent().y1 <= ax.get_window_extent().y0
    assert any("paper (text)" in t.get_text() for t in fig.legends[0].get_texts())


def test_evidence_states_the_word_form_ceiling_beside_every_p5_and_reports_every_map():
    from xalign.papers.liu2020.report import evidence

    *_, stats, paper_t3 = _p1_fixtures()
    wf = pd.DataFrame([{"variant": "multi_en->multi_zh", "test items": 347, "items with a same-form distractor": 119,
                        "most candidates sharing a gold's form": 4, "word-form ceiling P@1 (%)": 81.3,
                        "word-form ceiling P@5 (%)": 100.0, "word-form ceiling P@1, distractor items (%)": 45.0,
                        "word-form ceiling P@5, distractor items (%)": 100.0}])
    every = pd.DataFrame([{"variant": "multi_en->multi_zh", "method": m, "n": 4428, "P@1 (%)": 70 + d,
                           "P@1 change (points)": d, "P@1 change, distractor items (points)": d,
                           "distractor items": 119} for m, d in (("no mapping (centred)", 0.0), ("a", 2.2), ("b", 4.9))])
    text = evidence(_runs(_p1_fixtures()), ["multi_en->multi_zh"], stats, paper_t3, word_form=wf, every=every)
    assert "spans 70.0-74.6 % (word-form ceiling 100.0 %)" in text
    assert "both P@5; BTSR P@5's word-form ceiling 100.0 %" in text
    assert "P@5 cannot tell senses apart on this set" in text
    # the range over the maps is each map's change over the seeds' runs (one seed here), not ``every``'s
    assert "the 16 maps change BTSR P@1 by +0.0 to +4.6 points" in text and "best map" not in text


def test_the_self_retrieval_known_answer_fails_on_a_broken_map_or_scorer(monkeypatch):
    """Chapter 2's "each candidate retrieves itself" runs through the Procrustes fit and the P@k code on a
    rotated, shuffled copy: an identity map or a scorer that ignores the gold indices fails it (retrieving
    the unturned candidates in their own order, the check's first form, passed both)."""
    from dataclasses import replace

    from xalign.papers.liu2020 import audit

    rng = np.random.default_rng(3)
    C = rng.standard_normal((300, 16)).astype(np.float32)
    C[7] = 2 * C[3]  # a planted duplicate direction: kept once, not a tie
    assert audit.retrieves_itself(C) == 1.0
    fit, p_at_k = audit.fit_alignment, audit.precision_at_k
    with monkeypatch.context() as m:  # a map that does not undo the rotation
        m.setattr(audit, "fit_alignment", lambda X, Y, **kw: replace(fit(X, Y, **kw), W=np.eye(X.shape[1])))
        assert audit.retrieves_itself(C) < 0.5
    with monkeypatch.context() as m:  # a scorer that takes the i-th candidate as every i-th query's gold
        m.setattr(audit, "precision_at_k", lambda q, c, gold, ks, **kw: p_at_k(q, c, np.arange(len(q)), ks, **kw))
        assert audit.retrieves_itself(C) < 0.5
        unit = C / np.linalg.norm(C, axis=1, keepdims=True)
        U = C[~np.triu(unit @ unit.T >= 0.999, k=1).any(0)]
        assert audit.precision_at_k(U, U, np.arange(len(U)), (1,))[1] == 1.0  # the first form did not see it
