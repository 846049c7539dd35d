"""Chapter 2 over several seeds: Table 3 and Fig. 3's points are the mean over the seeds with their spread,
and the per-seed machinery (the seed list, the BCWS / SCWS samples drawn from one encoded union)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xalign.papers.liu2020 import experiments
from xalign.papers.liu2020.seeds import SeedRun, seed_columns, seed_summary, seeds_of

VARIANT = "multi_en->multi_zh"
#: BTSR P@5 of ``avg_type wa mim`` for each seed (fractions); every other cell is 0.5
P5 = {0: 0.40, 1: 0.46, 2: 0.31, 3: 0.52}


def _grid(p5: float, n: int) -> pd.DataFrame:
    rows = []
    for level in ("token", "avg_type"):
        for signal in ("wa", "sa"):
            for tech in ("orig", "mim"):
                v = p5 if (level, signal, tech) == ("avg_type", "wa", "mim") else 0.5
                for size in (100, n):
                    rows.append({"variant": VARIANT, "level": level, "signal": signal, "technique": tech, "n": size,
                                 "btsr_p1": v / 2, "btsr_p5": v if size == n else v / 4, "sr_token": 0.9,
                                 "sr_type": 0.8, "bcws": 0.5})
    g = pd.DataFrame(rows)
    g["method"] = g["level"] + " " + g["signal"] + " " + g["technique"]
    return g


def _runs(seeds) -> dict:
    # each seed's largest training size differs a little, as in the chapter (its test items block other pairs)
    return {s: SeedRun(_grid(P5[s], 4400 + s), pd.DataFrame(), pd.DataFrame(), pd.Series({VARIANT: 4400 + s}))
            for s in seeds}


class _Run:
    """The two recording calls of a ChapterRun that run_table3 and run_figures use."""

    def __init__(self):
        self.recorded, self.figures = {}, {}

    def compare(self, table, ours, keys, title="", note="", **kw):
        return ours.rename(columns={"value": "ours"})

    def record(self, name, frame, **kw):
        self.recorded[name] = frame

    def figure(self, name, frame, **kw):
        self.figures[name] = frame

    def not_run(self, *a, **kw):
        pass


def _table3(seeds):
    runs = _runs(seeds)
    first = runs[seeds[0]]
    g = experiments.Grid(first.grid, first.largest, pd.DataFrame())
    pair_data = {"zh": SimpleNamespace(btsr=SimpleNamespace(candidates=[0] * 10))}
    return experiments.run_table3(_Run(), g, runs, pair_data)


@pytest.mark.parametrize("seeds", [[0, 1, 2], [0, 2], [3, 1, 0, 2], [1]])
def test_table3_reports_the_mean_and_spread_of_the_per_seed_numbers(seeds):
    t3, best, summary = _table3(seeds)
    row = t3[(t3.level == "avg_type") & (t3.signal == "wa") & (t3.technique == "mim")].iloc[0]
    per_seed = np.array([100 * P5[s] for s in seeds])
    assert row["ours"] == pytest.approx(per_seed.mean())
    assert (row["seed min"], row["seed max"]) == (pytest.approx(per_seed.min()), pytest.approx(per_seed.max()))
    assert row["seed SD"] == pytest.approx(per_seed.std(ddof=1) if len(seeds) > 1 else 0.0)
    # a cell that does not move with the seed has no spread
    flat = t3[(t3.level == "token") & (t3.signal == "sa")]
    assert flat["ours"].tolist() == pytest.approx([50.0, 50.0]) and (flat["seed SD"] == 0).all()
    # the summary keeps every seed's value, in the order given, and P@1 beside P@5
    s = summary[(summary.measure == "P@5") & (summary.level == "avg_type") & (summary.signal == "wa")
                & (summary.technique == "mim")].iloc[0]
    assert [s[f"seed {k}"] for k in seeds] == pytest.approx(list(per_seed))
    assert s["spread"] == pytest.approx(per_seed.max() - per_seed.min()) and s["n_seeds"] == len(seeds)
    assert set(summary.measure) == {"P@5", "P@1"}
    # the first seed's rows are the ones the chapter shows in full
    assert set(best.n) == {4400 + seeds[0]}


def test_fig3_points_are_the_mean_over_the_seeds():
    runs = _runs([0, 1, 2])
    first = runs[0]
    g = experiments.Grid(first.grid, first.largest, pd.DataFrame())
    ws = SimpleNamespace(bcws={})
    f3 = experiments.run_figures(_Run(), g, ws, runs)
    row = f3[f3.method == "avg_type wa orig"].iloc[0]
    assert row["ours"] == pytest.approx(100 * 0.5 / 4) and row["seed SD"] == 0.0


def test_table4_is_the_mean_over_the_seeds_of_each_seeds_scws():
    scws = {0: 0.60, 1: 0.64, 2: 0.50}  # avg_type wa mim's SCWS rho per seed; the unmapped space 0.7 + seed / 100
    runs = {}
    for s, rho in scws.items():
        g = _grid(P5[s], 4400 + s)
        g["scws"] = np.where(g.method == "avg_type wa mim", rho, 0.55)
        original = pd.DataFrame([{"variant": VARIANT, "centred": c, "scws": 0.7 + s / 100} for c in (False, True)])
        runs[s] = SeedRun(g, original, pd.DataFrame(), pd.Series({VARIANT: 4400 + s}))
    g = experiments.Grid(runs[0].grid, runs[0].largest, runs[0].original)
    ws = SimpleNamespace(scws_data=[0] * 50, n_scws=2003)
    t4 = experiments.run_table4(_Run(), g, ws, runs).set_index("setting")
    assert t4.loc["avg_type wa mim", "ours"] == pytest.approx(100 * np.mean(list(scws.values())))
    assert t4.loc["avg_type wa mim", "seed min"] == pytest.approx(50.0)
    assert t4.loc["avg_type wa mim", "seed max"] == pytest.approx(64.0)
    assert t4.loc["original", "ours"] == pytest.approx(71.0) and t4.loc["token sa mim", "seed SD"] == 0.0


def test_seed_summary_and_columns():
    frame = pd.DataFrame({"k": ["a", "a", "a", "b", "b", "b"], "seed": [0, 1, 2] * 2,
                          "value": [1.0, 2.0, 6.0, 5.0, 5.0, 5.0]})
    s = seed_summary(frame, ["k"]).set_index("k")
    assert s.loc["a", "mean"] == 3.0 and s.loc["a", "sd"] == pytest.approx(np.std([1, 2, 6], ddof=1))
    assert (s.loc["a", "min"], s.loc["a", "max"], s.loc["a", "spread"]) == (1.0, 6.0, 5.0)
    assert s.loc["b", "spread"] == 0.0 and list(s.columns[-3:]) == ["seed 0", "seed 1", "seed 2"]
    assert list(seed_columns(seed_summary(frame, ["k"])).columns) == ["k", "value", "seed SD", "seed min", "seed max"]
    with pytest.raises(ValueError, match="more than one row"):
        seed_summary(pd.concat([frame, frame]), ["k"])


def test_seeds_of_reads_lists_and_comma_strings():
    assert seeds_of("0,2, 5") == [0, 2, 5]
    assert seeds_of([3, 1]) == [3, 1]
    with pytest.raises(ValueError, match="repeats a seed"):
        seeds_of([1, 1])


def test_the_seeds_parameter_has_a_declared_range():
    from xalign.book.params import check_parameters
    from xalign.core.profiles import ParameterError

    chapter = "02_btsr_contextual_alignment"
    check_parameters(chapter, {"profile": "default", "seeds": "0,1,2,3"})
    for bad, message in (("-1", r"'seeds' = '-1' .*integer >= 0"), ("0,0", "given twice"), ("", "'seeds' = ''")):
        with pytest.raises(ParameterError, match=message):
            check_parameters(chapter, {"profile": "default", "seeds": bad})
    with pytest.raises(ParameterError, match="'seed_sizes'"):
        check_parameters(chapter, {"profile": "default", "seed_sizes": "0"})


def test_each_seed_takes_its_wordsim_sample_from_one_encoded_union():
    from xalign.core import draws
    from xalign.data import wordsim
    from xalign.papers.liu2020.grid import ContextPairVectors

    n_items = 40
    rows = {s: (draws.sample_rows(n_items, 10, s), draws.sample_rows(n_items, 12, s + 7)) for s in (0, 1, 2)}
    ub = np.unique(np.concatenate([r[0] for r in rows.values()]))
    us = np.unique(np.concatenate([r[1] for r in rows.values()]))
    item = np.arange(n_items, dtype=float)[:, None] * np.ones((1, 3))  # row i's vector is (i, i, i)
    cpv = lambda idx: ContextPairVectors(item[idx], item[idx], np.arange(n_items, dtype=float)[idx])
    ws = experiments.WordSim(None, None, n_items, n_items, {}, {}, rows, (ub.tolist(), us.tolist()),
                             {VARIANT: cpv(ub)}, {VARIANT: cpv(us)})
    for s in (0, 1, 2):
        b, c = ws.at(s)
        assert b[VARIANT].A[:, 0].tolist() == rows[s][0].tolist()
        assert c[VARIANT].rating.tolist() == rows[s][1].tolist()
    # the rows are the ones wordsim.sample draws
    data = wordsim.ContextPairs([str(i) for i in range(n_items)], [(0, 1)] * n_items, ["x"] * n_items,
                                [(0, 1)] * n_items, np.arange(n_items, dtype=float), ["w"] * n_items, ["w"] * n_items)
    assert wordsim.sample(data, 10, 1).text_a == [str(i) for i in draws.sample_rows(n_items, 10, 1)]
