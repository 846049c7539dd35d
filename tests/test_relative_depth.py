"""The Compare models page's relative-depth section (issue 47): every layered card on one depth axis, and a
generated sentence per model and measure whose wording follows the intervals."""

from xalign.book.relative_depth import depth_rows, peak_findings, relative_depth_markdown


def _card(model, values, width=1.0, out=False):
    layers = [{"layer": str(i), "value": v, "lo": v - width, "hi": v + width, "n": 100} for i, v in enumerate(values)]
    if out:
        layers.append({"layer": "out", "value": 50.0, "lo": 49.0, "hi": 51.0, "n": 100})
    return {"model": model, "measures": {"mexa": {"layers": layers}}}


def test_depth_is_layer_over_the_deepest_numbered_layer_and_out_has_none():
    rows = depth_rows([_card("a", [10, 20, 30, 40, 20], out=True)])
    assert list(rows.depth) == [0, 0.25, 0.5, 0.75, 1.0] and set(rows.layer) == {0, 1, 2, 3, 4}


def test_a_middle_peak_is_named_only_when_it_is_separated_from_the_last_layer(tmp_path):
    cards = [_card("peaked", [10, 60, 20]), _card("flat-ish", [10, 21, 20], width=2.0), _card("rising", [10, 20, 30]),
             {"model": "no-layers", "measures": {"mexa": {"layers": [{"layer": "out", "value": 1, "lo": 0, "hi": 2}]}}}]
    found = peak_findings(depth_rows(cards)).set_index("model")
    assert found.loc["peaked", "separated"] == "up" and found.loc["peaked", "best layer"] == 1
    assert found.loc["flat-ish", "separated"] == "unresolved" and found.loc["rising", "separated"] == "last"
    md = relative_depth_markdown(cards, tmp_path, "/img")
    assert "`peaked`, MEXA on the card's 100 items: peaks at layer 1 of 2" in md
    assert "`flat-ish`, MEXA on the card's 100 items: highest at layer 1 of 2" in md and "not separated" in md
    assert "`rising`, MEXA on the card's 100 items: best at its last layer" in md
    assert "In 1 of 3 (model, measure) pairs" in md and "Not drawn (one output, no layers): `no-layers`" in md
    assert (tmp_path / "relative_depth.png").stat().st_size > 0 and (tmp_path / "relative_depth.csv").exists()
    assert ":name: fig-relative-depth" in md


def test_a_hostile_model_name_is_shown_as_text(tmp_path):
    import re

    md = relative_depth_markdown([_card("<script>alert(1)</script>", [10, 60, 20])], tmp_path, "/img")
    assert "`<script>alert(1)</script>`" in md  # a code span: MyST shows it as text
    assert "<script>" not in re.sub(r"`[^`]*`", "", md)
