"""Chapter 3: what carries fine-tuning's cost (issue 45, finding 4), and Fig. 2 from the untuned model."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xalign.papers.calibrated2023 import cost_controls as CC


def _tatoeba(rates: dict[int, float], n: int = 300, langs=("de", "sw")) -> pd.DataFrame:
    """A tatoeba_retrieval-like frame: accuracy ``rates[layer]`` (share) in every language, with hits."""
    rows = []
    for lang in langs:
        for layer, rate in rates.items():
            hits = np.arange(n) < round(rate * n)
            for d in ("xx->en", "en->xx"):
                rows.append({"lang": lang, "layer": layer, "direction": d, "value": 100 * hits.mean(), "hits": hits})
    return pd.DataFrame(rows)


def _controls(after_other_layer: float = 0.88, after_other_prefix: float = 0.71):
    tat = {("none", "chapter"): _tatoeba({11: 0.90, 12: 0.92}), ("none", "other"): _tatoeba({11: 0.89, 12: 0.90}),
           ("sentence_embedding", "chapter"): _tatoeba({11: after_other_layer, 12: 0.72}),
           ("sentence_embedding", "other"): _tatoeba({11: 0.86, 12: after_other_prefix})}
    return CC.cost_rows("m", tat, {"chapter": "query: ", "other": "passage: "}, CC.control_layers(12, 11),
                        "xx->en", seed=0)


def test_cost_rows_hold_each_condition_with_paired_intervals():
    rows = _controls()
    assert rows.condition.tolist() == [c[0] for c in CC.CONDITIONS]
    assert rows.layer.tolist() == [12, 11, 12] and rows.prefix.tolist() == ["query: ", "query: ", "passage: "]
    assert rows.change.round(6).tolist() == [-20.0, -2.0, -19.0]
    assert (rows.change_lo <= rows.change).all() and (rows.change <= rows.change_hi).all()
    assert (rows.change_hi - rows.change_lo > 0).all()
    table = CC.cost_table(rows)
    assert table["change (points)"].iloc[0].startswith("-20.0 [")


def test_the_sentence_names_the_factor_that_carries_the_cost():
    rows = _controls()
    assert CC.carries(rows, "other layer") == "up" and CC.carries(rows, "other prefix") == "unresolved"
    text = CC.cost_sentence(rows)
    assert "The layer carries the cost" in text and "the prefix leaves the cost where it is" in text
    assert "-20.0 points" in text and "layer 11" in text
    # the other way round: the prefix carries it, the layer does not
    text = CC.cost_sentence(_controls(after_other_layer=0.70, after_other_prefix=0.88))
    assert "the prefix carries the cost" in text and "The layer carries" not in text
    assert "comes with the layer read" not in text
    assert CC.cost_sentence(pd.DataFrame()) == ""


def test_control_layers_fall_back_to_the_layer_below():
    assert CC.control_layers(12, 11) == {"chosen": 12, "other": 11}
    assert CC.control_layers(12, 12) == {"chosen": 12, "other": 11}
    with pytest.raises(ValueError, match="chosen layer"):
        CC.control_layers(0, 0)


def test_fig2_is_measured_from_the_untuned_model():
    """Issue 45, finding 4: from the first checkpoint a fall before it reads as a rise (+4.5); from the
    untuned model the reader sees the cost. Fails on the old figure2_data (no untuned point)."""
    from xalign.papers.calibrated2023.experiments import figure2_data

    setup = SimpleNamespace(fig2_models=["m"])
    ckpt = {"m": pd.DataFrame({"fraction": [0.25, 0.5, 1.0], "validation": [91.5, 94.3, 96.0],
                               "sts": [82.1, 83.3, 83.6]})}
    untuned = {"m": pd.DataFrame({"fraction": [0.0], "validation": [99.0], "sts": [82.0]})}
    fig2 = figure2_data(setup, [], [], ckpt, None, untuned, ft_config=None, fig2_mode="checkpoints",
                        fig2_fractions=[1.0], fig2_tatoeba_langs=[], seed=0)
    ret = fig2[fig2.metric.str.startswith("sentence retrieval")].sort_values("fraction")
    assert ret.fraction.tolist() == [0.0, 0.25, 0.5, 1.0]
    assert ret.value.round(6).tolist() == [0.0, -7.5, -4.7, -3.0]  # below the untuned model throughout
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xalign.papers.calibrated2023 import figures

    fig = figures.plot_fig2(fig2, {"m": pd.Series({"fraction": 1.0})})
    assert "no change from the untuned model" in [line.get_label() for line in fig.axes[0].get_lines()]
    plt.close(fig)


def test_checkpoint_sentence_sets_the_checkpoints_beside_the_untuned_model():
    """Issue 45, finding 4: "from the first checkpoint to the last, validation retrieval rises" read as a gain
    while every checkpoint scored below the untuned model; the sentence now gives the untuned score.
    Fails on the old checkpoint_sentence (no untuned argument)."""
    from xalign.papers.calibrated2023 import evidence

    run = SimpleNamespace(info={"steps": 96, "checkpoints": [{"fraction": f, "step": s} for f, s in
                                                             ((0.25, 24), (0.5, 48), (1.0, 96))]})
    ckpt = pd.DataFrame({"fraction": [0.25, 0.5, 1.0], "path": ["a", "b", "c"], "validation": [91.48, 94.3, 95.95],
                         "sts": [82.1, 83.3, 83.6], "n_queries": 6000, "layer": 12})
    untuned = {"m": pd.DataFrame({"fraction": [0.0], "validation": [99.02], "sts": [82.0]})}
    text = evidence.checkpoint_sentence({"m": run}, {"m": ckpt.iloc[2]}, {"m": ckpt}, None, untuned)[0]
    assert "before fine-tuning the same validation queries score 99.0%, the checkpoints 91.5-96.0%" in text
    assert "before fine-tuning" not in evidence.checkpoint_sentence({"m": run}, {"m": ckpt.iloc[2]}, {"m": ckpt})[0]
