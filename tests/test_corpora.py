"""Pooling parallel text: every source and target sentence kept once; XNLI reader checks its columns."""

import pytest

from xalign.data import corpora
from xalign.data.readers import DataFormatError


def test_load_parallel_deduplicates_both_sides(monkeypatch):
    fake = {"xnli": [("a", "A"), ("a", "A2"), ("b", "A"), ("c", "C")], "tatoeba": [("c", "C3"), ("d", "D")]}
    monkeypatch.setattr(corpora, "_source_pairs", lambda source, s, t: (fake.get(source, []), "none"))
    c = corpora.load_parallel("en", "xx", ["xnli", "tatoeba", "wmt21"])
    assert list(zip(c.src, c.tgt)) == [("a", "A"), ("c", "C"), ("d", "D")]
    assert c.origin == ["xnli", "xnli", "tatoeba"] and c.skipped == {"wmt21": "none"}
    capped = corpora.load_parallel("en", "xx", ["xnli", "tatoeba"], max_per_source=1)
    assert capped.src == ["a", "c"]
    assert corpora.load_parallel("en", "xx", ["xnli", "tatoeba"], {"xnli": 1}).src == ["a", "c", "d"]


def test_read_xnli_pairs(tmp_path):
    en, es = tmp_path / "dev-en.tsv", tmp_path / "dev-es.tsv"
    en.write_text("He came.\tHe arrived.\tentailment\n")
    es.write_text("Él vino.\tÉl llegó.\tentailment\n")
    assert corpora.read_xnli_pairs(en, es) == [("He came.", "Él vino."), ("He arrived.", "Él llegó.")]
    es.write_text("Él vino.\n")
    with pytest.raises(DataFormatError, match="dev-es.tsv:1"):
        corpora.read_xnli_pairs(en, es)
    # a Unicode line separator inside a row does not shift the rows (Greek XNLI test file)
    es.write_text("Él\u2028vino.\tÉl llegó.\tentailment\n", encoding="utf-8")
    assert len(corpora.read_xnli_pairs(en, es)) == 2
