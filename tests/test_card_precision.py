"""bfloat16 against float32 cards: the measured difference the Compare models page states."""

import copy
import json
from pathlib import Path

import pytest

from xalign.card.precision import FLOAT32_CARDS, precision_difference, precision_markdown

COMMITTED = Path(__file__).resolve().parents[1] / "reference" / "cards"


def _card(values: dict[str, list[float]], best: dict[str, str], precision="bfloat16") -> dict:
    return {"model": "m", "precision": precision, "config": {"tatoeba_n": 100, "precision": "auto", "n_boot": 10},
            "measures": {mid: {"best_layer": best[mid],
                               "layers": [{"layer": str(i), "value": v, "lo": v - 2.0, "hi": v + 2.0}
                                          for i, v in enumerate(vals)]}
                         for mid, vals in values.items()}}


def test_the_largest_move_its_layer_and_a_moved_best_layer_are_found():
    low = _card({"sts": [50.0, 61.0, 70.5], "mexa": [10.0, 20.0]}, {"sts": "2", "mexa": "1"})
    exact = _card({"sts": [50.0, 60.0, 70.0], "mexa": [10.0, 23.0]}, {"sts": "2", "mexa": "0"}, "torch.float32")
    exact["config"]["precision"] = "float32"
    d = precision_difference(low, exact).set_index("measure")
    assert d.loc["sts", "max_abs_diff"] == pytest.approx(1.0) and d.loc["sts", "layer"] == "1"
    assert d.loc["mexa", "max_abs_diff"] == pytest.approx(3.0) and d.loc["mexa", "half_ci"] == pytest.approx(2.0)
    assert (d.loc["mexa", "best_low"], d.loc["mexa", "best_exact"]) == ("1", "0")


def test_cards_of_two_models_or_two_batteries_are_refused():
    a = _card({"sts": [1.0]}, {"sts": "0"})
    b = copy.deepcopy(a)
    b["model"] = "other"
    with pytest.raises(ValueError, match="two cards of one model"):
        precision_difference(a, b)
    b = copy.deepcopy(a)
    b["config"]["tatoeba_n"] = 50
    with pytest.raises(ValueError, match="different batteries"):
        precision_difference(a, b)


def test_the_page_paragraph_comes_from_the_two_cards(tmp_path):
    low = _card({"sts": [50.0, 61.0]}, {"sts": "1"})
    exact = _card({"sts": [50.0, 64.0]}, {"sts": "1"}, "torch.float32")
    (tmp_path / "m.json").write_text(json.dumps(exact))
    md = precision_markdown([low], tmp_path)
    assert "**m**: at most 3.00 points" in md and "not every change inside" in md and "no best layer moved" in md
    assert precision_markdown([exact], tmp_path) == ""  # a float32 card needs no such paragraph


def test_every_committed_bf16_card_stays_inside_its_float32_intervals():
    """The card's default (bf16 where native) is kept only while it moves no value beyond its own 95% interval."""
    twins = sorted(FLOAT32_CARDS.glob("*.json"))
    assert twins, "reference/cards/float32/ holds the float32 twins of the committed cards"
    for path in twins:
        exact = json.loads(path.read_text())
        low = json.loads((COMMITTED / path.name).read_text())
        assert low["precision"] == "bfloat16" and exact["precision"] == "torch.float32", path.name
        d = precision_difference(low, exact)
        assert len(d) == len(low["measures"]) and (d.max_abs_diff <= d.half_ci).all(), d.to_string()
