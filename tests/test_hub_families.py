"""The papers' model families, proven offline: every chapter's smoke profile and the card run on tiny
random models of mBERT (WordPiece), XLM-R (SentencePiece unigram), mBART (encoder-decoder) and LaBSE
(sentence-transformers). The numbers mean nothing; the code paths (offsets, special tokens, the encoder
of an encoder-decoder, sentence-transformers modules) are the ones the `paper` profiles take."""

import math

import pytest

from chapter_smoke import run_smoke
from conftest import mirror_available
from xalign.book.runner import chapter_ids
from xalign.testing.tiny import FAMILIES

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not mirror_available(), reason="needs the data mirror (XALIGN_DATA_MIRROR)")]


@pytest.mark.parametrize("chapter", chapter_ids())
@pytest.mark.parametrize("family", FAMILIES)
def test_every_chapter_runs_on_every_family(tiny_models, family, chapter, tmp_path, monkeypatch):
    run_smoke(chapter, tiny_models[family], tmp_path, monkeypatch)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_card_runs_on_every_family(tiny_models, family, tmp_path, monkeypatch):
    from xalign.card.battery import CardConfig, run_card

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    card = run_card(str(tiny_models[family]), CardConfig.tiny(), log=lambda *a: None)
    # every measure is either scored or named as not available, never silently absent
    unavailable = set(card["not_available"])
    assert set(card["measures"]) | unavailable >= {"tatoeba_nn_xx-en", "sts", "mexa", "s_strong"}
    for name in ("tatoeba_nn_xx-en", "sts"):
        rows = card["measures"][name]["layers"]
        assert [r["layer"] for r in rows] == [str(layer) for layer in card["layers"]], name
        for r in rows:  # a number inside its own interval, on the measure's scale, with its item count
            assert math.isfinite(r["value"]) and r["lo"] <= r["value"] <= r["hi"] and r["n"] > 0, (name, r)
            assert -100 <= r["lo"] and r["hi"] <= 100, (name, r)
        assert card["scores"][name] in [pytest.approx(r["value"], abs=0.005) for r in rows], name  # a layer's, rounded
