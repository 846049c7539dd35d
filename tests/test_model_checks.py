"""A model given as a local path says what is wrong with that path; a model without a usable tokenizer is an error."""

import shutil

import pytest

from xalign.core.loading import load_encoder
from xalign.core.model_checks import ModelFolderError, check_tokenizer, layer_count, looks_like_path
from xalign.core.st_encoder import st_module_names

WORDS = ("the", "cat", "sat", "on", "a", "mat", "while", "der", "Hund", "lief", "über", "die", "Straße", "und",
         "el", "perro", "corre", "por", "la", "calle")
SENTENCES = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(3 + i % 9)) for i in range(300)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny mBERT-like and a tiny LaBSE-like (sentence-transformers) model, built offline."""
    from xalign.testing.tiny import build_tiny_model

    root = tmp_path_factory.mktemp("tiny-checks")
    return {fam: build_tiny_model(fam, root / fam, SENTENCES, vocab_size=300) for fam in ("mbert", "labse")}


def _copy(src, dst, drop=()):
    shutil.copytree(src, dst)
    for name in drop:
        (dst / name).unlink()
    return dst


def test_a_folder_without_tokenizer_files_is_an_error(tiny, tmp_path):
    # config and weights, no tokenizer: the old loader ran with a 5-token tokenizer (every word [UNK])
    bare = _copy(tiny["mbert"], tmp_path / "bare", [p.name for p in tiny["mbert"].iterdir()
                                                     if p.name.startswith(("tokenizer", "special_tokens", "vocab"))])
    with pytest.raises(ModelFolderError, match=r"bare has no tokenizer files: none of tokenizer.json"):
        load_encoder(str(bare), progress=False)


def test_a_tokenizer_of_special_tokens_only_is_refused():
    class FiveTokens:
        all_special_ids = (0, 1, 2, 3, 4)

        def __len__(self):
            return 5

    with pytest.raises(ModelFolderError, match="5 tokens, only the special ones"):
        check_tokenizer(FiveTokens(), "m")


def test_the_tiny_model_still_loads(tiny):
    enc = load_encoder(str(tiny["mbert"]), progress=False)
    assert enc.n_layers == 3 and layer_count(str(tiny["mbert"])) == 3


@pytest.mark.parametrize("case,message", [
    ("missing", r"model path '.*missing' does not exist"),
    ("file", r"model path '.*weights.bin' is a file, not a model folder"),
    ("broken-config", r"config.json: config.json is not valid JSON \(line 1"),
    ("no-weights", r"no-weights has no weights: none of model.safetensors"),
    ("no-config", r"no-config is a directory but not a model: it has no config.json"),
])
def test_a_bad_model_path_says_what_is_wrong_with_it(case, message, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the old message blamed the unreachable hub for all of these
    if case == "missing":
        name = tmp_path / "missing"
    elif case == "file":
        name = tmp_path / "weights.bin"
        name.write_bytes(b"\0" * 16)
    elif case == "broken-config":
        name = _copy(tiny["mbert"], tmp_path / case)
        (name / "config.json").write_text('{"model_type": "bert",')
    elif case == "no-weights":
        name = _copy(tiny["mbert"], tmp_path / case, ["model.safetensors"])
    else:
        name = _copy(tiny["mbert"], tmp_path / case, ["config.json"])
    with pytest.raises(ModelFolderError, match=message) as err:
        load_encoder(str(name), progress=False)
    assert "hub is not reachable" not in str(err.value)


def test_a_sentence_transformers_folder_with_a_broken_modules_json_names_it(tiny, tmp_path):
    st = _copy(tiny["labse"], tmp_path / "st")
    assert st_module_names(st)[0] == "Transformer"
    (st / "modules.json").write_text('[{"idx": 0, "path": ""')
    with pytest.raises(ModelFolderError, match=r"st/modules.json: modules.json is not valid JSON"):
        load_encoder(str(st), progress=False)
    (st / "modules.json").write_text('{"not": "a list"}')
    with pytest.raises(ModelFolderError, match=r"modules.json must be a list .* the folder .*st is damaged"):
        load_encoder(str(st), progress=False)


def test_hub_ids_are_not_paths():
    assert not looks_like_path("sentence-transformers/LaBSE") and not looks_like_path("bert-base-cased")
    assert looks_like_path("./m") and looks_like_path("/x/y") and looks_like_path("~/m")
