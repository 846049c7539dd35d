"""The thesis' input path: Latin-1 mojibake, whole-word vocabulary lookup, unknown-token share."""

import pytest

from xalign.papers.nyholm2020.multisent import (
    latin1_mojibake,
    senteval_words,
    thesis_ids,
    thesis_probes,
    unk_share,
    whole_word_ids,
    word_start_marker,
)


class WordPieceLike:
    """A BERT-like tokenizer stub: [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, whole words and '##' pieces."""

    unk_token_id, cls_token_id, sep_token_id, bos_token_id, eos_token_id = 1, 2, 3, None, None
    all_special_ids = (0, 1, 2, 3)

    def __init__(self, words):
        self.vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
        for w in words:
            self.vocab.setdefault(w, len(self.vocab))

    def get_vocab(self):
        return dict(self.vocab)


class SentencePieceLike(WordPieceLike):
    """An XLM-R-like stub: <s>=0, <pad>=1, </s>=2, <unk>=3, word-initial pieces carry '▁'."""

    unk_token_id, cls_token_id, sep_token_id = 3, 0, 2
    all_special_ids = (0, 1, 2, 3)

    def __init__(self, words):
        self.vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
        for w in words:
            self.vocab.setdefault(w, len(self.vocab))


def test_latin1_mojibake():
    assert latin1_mojibake("café") == "cafÃ©"
    assert latin1_mojibake("plain ascii") == "plain ascii"
    assert len(latin1_mojibake("我")) == 3  # one CJK character -> three Latin-1 characters
    assert senteval_words("Él dijo: sí .", latin1=True) == ["Ã\x89l", "dijo:", "sÃ\xad", "."]
    assert senteval_words("Él dijo: sí .", latin1=False) == ["Él", "dijo:", "sí", "."]


def test_whole_word_lookup_wordpiece():
    tok = WordPieceLike(["He", "go", "home", "##s", "."] + [f"w{i}" for i in range(200)])
    assert word_start_marker(tok) == ""
    ids = whole_word_ids(["He", "go", "home.", "homes"], tok)
    v = tok.vocab
    assert ids == [2, v["He"], v["go"], 1, 1, 3]  # "home." and "homes" are not entries: [UNK]
    assert whole_word_ids([], tok) == [2, v["."], 3]  # SentEval's empty sentence -> ['.']


def test_whole_word_lookup_sentencepiece_and_unk_share():
    tok = SentencePieceLike(["▁He", "▁go", "▁home", "s", "."] + [f"▁w{i}" for i in range(200)])
    assert word_start_marker(tok) == "▁"
    ids = thesis_ids(["He go home", "He went héme"], tok, latin1=True)
    v = tok.vocab
    assert ids[0] == [0, v["▁He"], v["▁go"], v["▁home"], 2]
    assert ids[1] == [0, v["▁He"], 3, 3, 2]
    assert unk_share(ids, tok) == pytest.approx(2 / 6)


def test_thesis_probes():
    mlp, lr = thesis_probes("xnli")
    assert (mlp.kind, mlp.nhid, mlp.config, mlp.grid(), mlp.epoch_size) == ("mlp", 5, "prototyping", (1e-9,), 1)
    assert lr.kind == "logreg" and lr.max_epoch == 200
    assert thesis_probes("xnli", max_epoch=15)[0].max_epoch == 15
    mlp, lr = thesis_probes("xed")
    assert len(mlp.grid()) == 4
    with pytest.raises(ValueError):
        thesis_probes("sst")


@pytest.mark.slow
def test_real_tokenizer_path():
    from xalign.core.loading import load_encoder

    enc = load_encoder(progress=False)
    tok = enc.tokenizer
    ids = thesis_ids(["He didn't go home.", "我没有特别的商店。"], tok, latin1=True)
    pieces = [tok.convert_ids_to_tokens(x) for x in ids]
    assert pieces[0][:2] == ["<s>", "▁He"] and pieces[0][-1] == "</s>"
    assert pieces[1] == ["<s>", "<unk>", "</s>"]


# --------------------------------------------------------------------------- the thesis configuration's dev split
def fake_xnli(monkeypatch, n_groups=40):
    """XNLI stand-in: ``n_groups`` premise groups of three rows (one per label), dev and test alike."""
    from xalign.data import taskdata

    rows = [taskdata.NLIPair(f"premise {g}", f"hyp {g} {lab}", lab, 3 * g + i)
            for g in range(n_groups) for i, lab in enumerate(taskdata.NLI_LABELS)]
    monkeypatch.setattr(taskdata, "xnli_pairs", lambda lang, split, n=None, seed=0: (
        [rows[i] for i in taskdata.sample_groups(len(rows), taskdata.premise_groups(rows), n, seed)]))
    return rows


def test_thesis_configuration_early_stops_on_the_dev_split_it_was_given(monkeypatch, tmp_path):
    """SentEval's SNLI task (SplitClassifier) early-stops on its dev split: the thesis configuration
    must use the dev split handed to it, not 5 % of the training pairs."""
    import numpy as np

    from xalign.core.cache import EmbeddingCache
    from xalign.data import taskdata
    from xalign.measures import probe, probe_tasks
    from xalign.papers.nyholm2020.multisent import thesis_task

    fake_xnli(monkeypatch)
    task = taskdata.xnli_task("en", "en", 30, 30, seed=0)
    dev_task = thesis_task(task, 24, seed=0)
    assert len(dev_task.dev.labels) == 24 and np.bincount(dev_task.dev.labels).tolist() == [8, 8, 8]
    assert not set(dev_task.dev.texts[0]) & set(task.train.texts[0])  # no premise shared with training
    assert dev_task.train is task.train and dev_task.test is task.test

    seen = []
    fit = probe.TorchProbe.fit

    def spy(self, X, y, validation=None, validation_split=None, groups=None):
        seen.append(None if validation is None else len(validation[1]))
        return fit(self, X, y, validation=validation, validation_split=validation_split, groups=groups)

    monkeypatch.setattr(probe.TorchProbe, "fit", spy)
    monkeypatch.setattr(probe, "_probe_cache", EmbeddingCache(tmp_path / "probes"))  # train, do not reuse
    vec = {t: np.random.default_rng(len(t)).normal(size=4).astype(np.float32) for t in dev_task.all_texts()}
    batcher = lambda texts: np.stack([vec[t] for t in texts])
    specs = [s.with_(max_epoch=4) for s in thesis_probes("xnli")]
    rows = [r for spec in specs for r in probe_tasks.evaluate(dev_task, batcher, [spec], seed=0)]
    assert seen and all(n == 24 for n in seen)  # every fit early-stopped on the given dev split
    assert all(r["early_stopping"] == "dev split (24 items)" for r in rows)
    assert all(r["selection"] == "none (one grid value)" for r in rows)  # noreg: nothing was selected


def test_thesis_task_errors_name_the_parameter(monkeypatch):
    from xalign.data import taskdata
    from xalign.papers.nyholm2020.multisent import thesis_task

    fake_xnli(monkeypatch, n_groups=10)
    with pytest.raises(ValueError, match="xnli_dev_pairs"):
        thesis_task(taskdata.xnli_task("en", "en", 15, 15), 0)
    with pytest.raises(ValueError, match="xnli_train_pairs"):
        thesis_task(taskdata.xnli_task("en", "en", None, 15), 6)


def test_unk_share_reads_the_tokenizer_attributes_once():
    """A fast tokenizer's attribute costs microseconds: one lookup per token made this seconds per language."""
    reads = []

    class Tok:
        all_special_ids = (0, 1, 3)

        @property
        def unk_token_id(self):
            reads.append(1)
            return 3

    ids = [[0, 5, 3, 3, 1]] * 1000
    assert unk_share(ids, Tok()) == pytest.approx(2 / 3)
    assert len(reads) <= 2


def test_layers_are_parsed_by_core_layers():
    """A layer out of range is an error naming the range (it was wrapped: 99 -> layer 8), before any work."""
    from types import SimpleNamespace

    from xalign.papers.nyholm2020.multisent import encode_ids, thesis_bank

    enc = SimpleNamespace(n_layers=13)
    with pytest.raises(ValueError, match=r"layers \[99\] out of range \(0\.\.12"):
        encode_ids(enc, [[0, 5, 2]], layers=[99])
    with pytest.raises(ValueError, match=r"layers \[13\] out of range \(0\.\.12"):
        thesis_bank(enc, ["a text"], keep_layers=[13])
