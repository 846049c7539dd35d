"""Chapter 3's prefix comparison: the documented prefix against the other, paired over the same sentences."""


import pytest

from toy_encoders import MeaningEncoder
from xalign.papers.calibrated2023 import views
from xalign.papers.calibrated2023.prefix_choice import has_prefix_choice, prefix_caption, prefix_effect, prefix_sentence


def loader(lang):
    return [(f"{lang}:{i}", f"en:{i}") for i in range(40)]


def test_the_paired_difference_counts_the_sentences_the_other_prefix_loses():
    encoders = {"query: ": MeaningEncoder("query: "), "passage: ": MeaningEncoder("passage: ", frozenset(range(10)))}
    out = prefix_effect("m", encoders, ["de", "fr"], {"chosen": 1, "last": 1}, n=None, loader=loader)
    assert set(out.lang) == {"de", "fr", "all"} and set(out.layer) == {"chosen", "last"}
    pooled = out[(out.lang == "all") & (out.layer == "chosen")].iloc[0]
    assert pooled.n_pairs == 80
    assert pooled["query: "] == 100.0
    assert pooled["passage: "] == pytest.approx(100 * 60 / 80, abs=1.3)  # 10 of 40 per language lost (+/- a lucky hit)
    assert pooled["diff"] == pytest.approx(pooled["query: "] - pooled["passage: "])
    assert 0 < pooled.ci_lo <= pooled["diff"] <= pooled.ci_hi
    same = prefix_effect("m", {"query: ": encoders["query: "], "passage: ": MeaningEncoder("passage: ")},
                         ["de"], {"chosen": 1}, n=None, loader=loader)
    assert (same["diff"] == 0).all() and (same.ci_lo == 0).all() and (same.ci_hi == 0).all()


def test_the_sentence_and_table_say_what_the_numbers_say():
    encoders = {"query: ": MeaningEncoder("query: "), "passage: ": MeaningEncoder("passage: ", frozenset(range(10)))}
    out = prefix_effect("m", encoders, ["de", "fr"], {"chosen": 1, "last": 1}, n=None, loader=loader)
    text = prefix_sentence(out)
    assert "over all 80 sentences" in text and "`query:` is ahead beyond its interval in 2 of 2 languages" in text
    table = views.prefix_table(out)
    assert list(table.language) == ["all (pooled)", "de", "fr"]
    assert "no model of this run" in prefix_sentence(out.iloc[0:0]).lower()


def test_only_families_with_two_documented_prefixes_are_compared():
    assert has_prefix_choice("multilingual-e5-small") and not has_prefix_choice("bert-base-multilingual-cased")


def test_two_encoders_are_required():
    with pytest.raises(ValueError, match="exactly two prefixes"):
        prefix_effect("m", {"query: ": MeaningEncoder("query: ")}, ["de"], {"chosen": 1}, n=None, loader=loader)


def test_a_prefix_that_changes_nothing_is_said_so():
    same = {"query: ": MeaningEncoder("query: "), "passage: ": MeaningEncoder("passage: ")}
    text = prefix_sentence(prefix_effect("m", same, ["de"], {"chosen": 1}, n=None, loader=loader))
    assert "no language moves at all" in text and "largest moves" not in text


def test_a_chosen_layer_that_is_the_last_is_shown_once():
    encoders = {"query: ": MeaningEncoder("query: "), "passage: ": MeaningEncoder("passage: ", frozenset(range(10)))}
    out = prefix_effect("m", encoders, ["de", "fr"], {"chosen": 1, "last": 1}, n=None, loader=loader)
    table = views.prefix_table(out)
    assert [c for c in table.columns if c.startswith("query:")] == ["query: (%)"]  # the caption names the layer
    assert "the chosen (= last) layer (1)" in prefix_caption(out, "xx->en")
    assert "model" not in table.columns  # one model: no column repeating its name
    text = prefix_sentence(out)
    assert text.count("layer:") == 1 and "chosen (= last) layer" in text and "over all 80 sentences" in text


def test_two_layers_are_told_apart_in_the_headers():
    encoders = {"query: ": MeaningEncoder("query: "), "passage: ": MeaningEncoder("passage: ", frozenset(range(10)))}
    out = prefix_effect("m", encoders, ["de"], {"chosen": 0, "last": 1}, n=None, loader=loader)
    table = views.prefix_table(out)
    assert {"query:, layer 0 (%)", "query:, layer 1 (%)", "difference, layer 1 (points)"} <= set(table.columns)
    assert "the chosen layer (0) and the last layer (1)" in prefix_caption(out, "xx->en")


def test_the_caption_names_the_prefixes_plainly():
    encoders = {"query: ": MeaningEncoder("query: "), "passage: ": MeaningEncoder("passage: ")}
    out = prefix_effect("m", encoders, ["de"], {"chosen": 1}, n=None, loader=loader)
    assert "difference = query minus passage," in prefix_caption(out, "xx->en")


def test_the_documented_prefix_is_not_encoded_again():
    """The chapter's Tatoeba run encodes every layer; the comparison asks for the same, so it is served from
    the cache (one call per language, with layers=None), not re-encoded at the chosen layers only."""
    asked = []

    class Recording(MeaningEncoder):
        def encode_sentences(self, texts, pooling="mean", layers=None):
            asked.append(layers)
            return super().encode_sentences(texts, pooling, layers)

    encoders = {"query: ": Recording("query: "), "passage: ": MeaningEncoder("passage: ")}
    prefix_effect("m", encoders, ["de"], {"chosen": 1}, n=None, loader=loader)
    assert asked and all(layers is None for layers in asked)
