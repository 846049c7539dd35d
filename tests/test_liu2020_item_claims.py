"""Chapter 2's claims on two maps need a paired interval over the items and the seeds' agreement (#45 finding 3).

On main a claim was a finding whenever three seeds shared a sign (one time in four without any effect): the
zh "the map helps (+1.2, from +1.0 to +1.3)" rested on about 4 of 312 items."""

import numpy as np
import pandas as pd
import pytest

from xalign.papers.liu2020.itemclaims import claims_table, item_differences, next_level
from xalign.papers.liu2020.seeds import SeedRun, across_seeds, item_claim, item_claim_text, paired_over_seeds


def _few_items_better(n=312, better=4, seed=0, flips=20):
    """Per-item differences (points) of two maps that disagree on ``flips`` + ``better`` items, the first right on
    ``better`` more of them than the second (net)."""
    rng = np.random.default_rng(seed)
    d = np.zeros(n)
    idx = rng.permutation(n)[:flips + better]
    d[idx[: (flips + better + better) // 2]] = 100.0
    d[idx[(flips + better + better) // 2:]] = -100.0
    return d


def test_three_seeds_of_one_sign_are_no_finding_without_an_interval_that_excludes_zero():
    diffs = [_few_items_better(better=b, seed=s) for s, b in ((0, 3), (1, 4), (2, 4))]
    means = [d.mean() for d in diffs]
    assert all(m > 0 for m in means)
    assert across_seeds(means, "the map helps", "the map hurts", "x").startswith("the map helps")  # main's wording
    row = item_claim(diffs)
    assert row["finding"] == "within noise" and row["change"] == "unresolved"
    assert row["lo"] <= 0 <= row["hi"]
    text = item_claim_text(row, "the map helps", "the map hurts", "the mapped and unmapped spaces")
    assert text.startswith("within noise") and "95% CI over the items" in text and "holds zero" in text


def test_a_large_effect_shared_by_every_seed_is_a_finding():
    diffs = [_few_items_better(better=60, seed=s) for s in range(3)]
    row = item_claim(diffs)
    assert row["finding"] == "up" and row["lo"] > 0
    assert item_claim_text(row, "it helps", "it hurts", "x").startswith("it helps (+")


def test_an_interval_that_excludes_zero_with_a_seed_against_it_is_within_noise():
    diffs = [_few_items_better(better=60, seed=0), _few_items_better(better=60, seed=1), -_few_items_better(better=2)]
    row = item_claim(diffs)
    assert row["change"] == "up" and row["finding"] == "within noise"
    assert "seeds disagree" in item_claim_text(row, "up", "down", "x")


def test_paired_over_seeds_pools_each_seeds_items():
    mean, lo, hi = paired_over_seeds([np.full(10, 2.0), np.full(30, 4.0)])
    assert (mean, lo, hi) == pytest.approx((3.0, 3.0, 3.0))
    with pytest.raises(ValueError, match="n_boot"):
        paired_over_seeds([np.ones(3)], n_boot=0)
    with pytest.raises(ValueError, match="NaN"):
        paired_over_seeds([np.array([1.0, np.nan])])
    with pytest.raises(ValueError, match="non-empty"):
        paired_over_seeds([])


def _hits(rng, n=50):
    methods = ["token wa orig", "token wa mim", "avg_type wa orig", "avg_type wa mim", "avg_type dict orig",
               "iso_type wa orig", "no mapping (centred)"]
    return {(m, k): (rng.random(n) < 0.4).astype(float) for m in methods for k in (1, 5)}


def test_claims_table_pairs_each_seeds_items():
    rng = np.random.default_rng(1)
    empty = pd.DataFrame()
    runs = {s: SeedRun(empty, empty, empty, pd.Series(dtype=float), {"v": _hits(rng)}) for s in range(3)}
    t = claims_table(runs, ["v"])
    assert set(t["claim"]) == {"levels", "mim", "dict", "map"} and set(t["measure"]) == {"P@1", "P@5"}
    h = runs[0].hits["v"]
    d = item_differences(h, "mim")
    assert d == pytest.approx(100 * (h["avg_type wa mim", 1] - h["avg_type wa orig", 1]))
    lv = next_level(h)
    assert lv in ("token", "iso_type")
    row = t[(t.claim == "mim") & (t.measure == "P@1")].iloc[0]
    means = [item_differences(r.hits["v"], "mim").mean() for r in runs.values()]
    assert row["value"] == pytest.approx(np.mean(means))
    assert (row["seed min"], row["seed max"]) == pytest.approx((min(means), max(means)))
    assert row["n_items"] == 150
    with pytest.raises(ValueError, match="claim"):
        item_differences(h, "nonsense")


def test_scale_note_quotes_table3s_seed_means_not_the_first_seed():
    """#45 finding 6: "P@5 spans 44.6-86.1" was the first seed's; Table 3 shows the means over the seeds."""
    from xalign.papers.liu2020 import report

    grid = pd.DataFrame({"variant": "v", "signal": ["wa", "sa"], "n": 100, "btsr_p5": [0.446, 0.861]})
    largest = pd.Series({"v": 100})
    stats = pd.DataFrame({"pair": ["en-zh"], "candidates": [6488]})
    paper = pd.DataFrame({"value": [50.0, 70.0]})
    seeds = pd.DataFrame({"measure": ["P@5", "P@5", "P@1"], "mean": [44.9, 84.3, 37.7], "n_seeds": 3})
    note = report.scale_note(grid, largest, stats, paper, table3_seeds=seeds)
    assert "(Table 3, mean over 3 seeds) spans 44.9-84.3 %" in note
    assert "(first seed) spans 44.6-86.1 %" in report.scale_note(grid, largest, stats, paper)


def test_every_map_counts_only_maps_whose_item_interval_excludes_zero():
    """#45 finding 3: "N maps raise it for each seed" was a per-map sign test; now a paired interval per map."""
    from xalign.papers.liu2020.everymap import every_map_summary
    from xalign.papers.liu2020.itemclaims import map_findings

    rng = np.random.default_rng(5)
    runs = {}
    for s in range(3):
        base = (rng.random(312) < 0.4).astype(float)
        big = base.copy()
        big[np.flatnonzero(base == 0)[:60]] = 1.0  # +19 points on every seed
        small = base.copy()
        small[np.flatnonzero(base == 0)[:12]] = 1.0  # 12 items gained, 10 lost: +0.6 points on every seed,
        small[np.flatnonzero(base == 1)[:10]] = 0.0  # one sign, within noise
        empty = pd.DataFrame()
        runs[s] = SeedRun(empty, empty, empty, pd.Series(dtype=float), {"v": {
            ("no mapping (centred)", 1): base, ("big", 1): big, ("small", 1): small}})
    found = map_findings(runs, ["v"])
    assert dict(zip(found["method"], found["finding"])) == {"big": "up", "small": "within noise"}
    every = pd.DataFrame([{"variant": "v", "method": m, "P@1 (%)": 40.0, "P@1 change (points)": 0.0,
                           "P@1 change, distractor items (points)": np.nan, "distractor items": 0}
                          for m in ("no mapping (centred)", "big", "small")])
    changes = pd.DataFrame([{"seed": s, "variant": "v", "method": m, "change": found.set_index("method").loc[m, "value"]}
                            for s in range(3) for m in ("big", "small")])
    sign_only = every_map_summary(every, changes)
    assert "2 raise it for each of the 3 seeds" in sign_only  # main's count
    text = every_map_summary(every, changes, found)
    assert "1 raise it (paired 95% interval over the items excluding zero, every seed agreeing), 1 within noise" in text
