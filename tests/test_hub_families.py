"""The papers' model families, proven offline: every chapter's smoke profile and the card run on tiny
random models of mBERT (WordPiece), XLM-R (SentencePiece unigram), mBART (encoder-decoder) and LaBSE
(sentence-transformers). The numbers mean nothing; the code paths (offsets, special tokens, the encoder
of an encoder-decoder, sentence-transformers modules) are the ones the `paper` profiles take."""

import json

import pytest

from chapter_smoke import run_smoke
from conftest import mirror_available
from xalign.book.runner import chapter_ids
from xalign.core.tiny import FAMILIES

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not mirror_available(), reason="needs the data mirror (XALIGN_DATA_MIRROR)")]


@pytest.mark.parametrize("chapter", chapter_ids())
@pytest.mark.parametrize("family", FAMILIES)
def test_every_chapter_runs_on_every_family(tiny_models, family, chapter, tmp_path, monkeypatch):
    run_smoke(chapter, tiny_models[family], tmp_path, monkeypatch)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_card_runs_on_every_family(tiny_models, family, tmp_path, monkeypatch):
    from xalign.book.card import CardConfig, run_card

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    card = run_card(str(tiny_models[family]), CardConfig.tiny(), log=lambda *a: None)
    scores = json.dumps(card)
    assert "tatoeba" in scores.lower() and "sts" in scores.lower()
