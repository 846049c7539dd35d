"""The runner, the notebook itself and the Python API check a chapter's parameters (names, declared ranges)
before any work starts."""

import json
import sys

import pytest

from xalign.book.cli import main
from xalign.book.params import check_parameters
from xalign.core.param_ranges import check_layers, check_value, load_ranges
from xalign.core.profiles import ParameterError
from xalign.papers import meta

CH1 = "01_weak_strong_alignment"


def test_a_misspelled_name_is_refused_with_the_valid_names():
    with pytest.raises(ParameterError, match=r"unknown parameter\(s\) \['n_pair'\]; valid names: .*n_pairs"):
        check_parameters(CH1, {"profile": "smoke", "n_pair": 10})


def test_a_value_of_the_wrong_type_is_refused():
    with pytest.raises(ParameterError, match=r"'n_pairs' = 'abc' is outside its range: it must be an integer >= 1"):
        check_parameters(CH1, {"profile": "smoke", "n_pairs": "abc"})


def test_good_parameters_pass():
    check_parameters(CH1, {"profile": "smoke", "n_pairs": 100, "pairs": ["de-en"], "layers": [0, 12], "k": 5})
    check_parameters("02_btsr_contextual_alignment", {"profile": "default"})


def test_the_cli_exits_non_zero_before_running(capsys, monkeypatch):
    from xalign.book import runner

    monkeypatch.setattr("papermill.execute_notebook", lambda *a, **k: pytest.fail("the chapter ran"), raising=False)
    assert main(["run", "01", "--profile", "smoke", "-p", "n_pair", "5"]) == 2
    assert "valid names" in capsys.readouterr().err
    assert runner  # imported: the check happens inside run_chapter


# ---------------------------------------------------------------- declared ranges (issue: silent wrong results)
#: (parameter, value, what the message must say): each was accepted or crashed without naming the parameter
OUT_OF_RANGE = [
    ("mask_pool", -3, r"'mask_pool' = -3 .* integer >= 1"),  # used every pair (pool[:-3])
    ("max_sentences", -1, r"'max_sentences' = -1 .* integer >= 0"),  # ran 1,999 of 2,000 sentences (out[:-1])
    ("pairs", "", r"'pairs' = '' .*empty value is not \"use the profile\""),
    ("n_pairs", "", r"'n_pairs' = '' .* integer >= 1"),
    ("pairs", "de-en,de-en", r"'pairs' = 'de-en,de-en' .*'de-en' is given twice"),  # averaged duplicate rows
    ("pairs", ["de-en", "de-en"], r"'de-en' is given twice"),
    ("k", 1000, r"'k' = 1000 .* at most n_pairs = 150"),  # was clipped to N without a note
    ("n_pairs", -5, r"'n_pairs' = -5 .* integer >= 1"),  # 'negative dimensions'
    ("runs", 0, r"'runs' = 0 .* integer >= 1"),  # KeyError: 'layer'
    ("seed", -1, r"'seed' = -1 .* integer >= 0"),
    ("n_sentences", 0, r"'n_sentences' = 0 .* integer >= 1"),  # failed after 162 s
    ("layers", "foo", r"'layers' = 'foo' .* one of \['', 'all'"),  # passed the type check, then int() failed
    ("corpora", "wmt20", r"'corpora' = 'wmt20' .*one of \['wmt19', 'wmt21'\]"),
    ("autocast", "bf16", r"'autocast' = 'bf16'"),
]


@pytest.mark.parametrize("name,value,message", OUT_OF_RANGE, ids=[f"{n}={v!r}" for n, v, _ in OUT_OF_RANGE])
def test_a_value_outside_its_declared_range_is_an_error_naming_it(name, value, message):
    with pytest.raises(ParameterError, match=message):
        check_parameters(CH1, {"profile": "smoke", name: value})


@pytest.mark.parametrize("name,value,message", OUT_OF_RANGE, ids=[f"{n}={v!r}" for n, v, _ in OUT_OF_RANGE])
def test_the_python_api_and_the_notebook_check_the_same_ranges(name, value, message):
    with pytest.raises(ParameterError, match=message):
        meta.parameters("gaschi2022", "smoke", {name: value})


def test_values_in_range_pass_in_every_spelling():
    for extra in ({"layers": "0,6,12"}, {"layers": [0, 6]}, {"layers": "all"}, {"layers": None},
                  {"pairs": "de-en,zh-en"}, {"pairs": ["de-en"]}, {"max_sentences": 0}, {"k": 100}):
        check_parameters(CH1, {"profile": "smoke", **extra})
    P = meta.parameters("gaschi2022", "smoke", {"n_pairs": 120, "k": None})
    assert (P.n_pairs, P.k, P.profile) == (120, 10, "smoke")


def test_a_layer_beyond_the_model_is_an_error_before_the_run():
    # e5-small has 13 hidden states (0..12); 99 used to draw Fig. 5 at layer 12 while the results said 99
    with pytest.raises(ParameterError, match=r"'dist_layer' = 99: layer 99 is beyond model .*0\.\.12"):
        check_layers(meta.ranges("gaschi2022"), {"dist_layer": 99}, 13, "multilingual-e5-small")
    with pytest.raises(ParameterError, match=r"'layers' = \[0, 13\]: layer 13 is beyond"):
        meta.check_model_layers("gaschi2022", {"layers": [0, 13]}, 13, "m")
    with pytest.raises(ParameterError, match=r"'layer' = 99"):
        meta.check_model_layers("nyholm2020", {"layer": 99}, 13, "m")  # was used as 99 % 13
    meta.check_model_layers("nyholm2020", {"layer": -1}, 13, "m")
    meta.check_model_layers("calibrated2023", {"xnli_layer": "best"}, 13, "m")


def test_the_runner_checks_layers_against_a_local_model(tmp_path):
    from safetensors.numpy import save_file

    model = tmp_path / "m"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({"model_type": "bert", "num_hidden_layers": 2,
                                                   "hidden_size": 32, "num_attention_heads": 2}))
    save_file({}, str(model / "model.safetensors"))  # a whole (empty) file: only its header is read before the run
    (model / "tokenizer.json").write_text("{}")
    with pytest.raises(ParameterError, match=r"layer 3 is beyond model .*0\.\.2"):
        check_parameters(CH1, {"profile": "smoke", "model": str(model), "dist_layer": 3})


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_every_parameter_has_a_declared_range_that_every_profile_meets(paper):
    ranges = load_ranges(meta.paper_dir(paper) / "profiles.yaml")  # checks each profile against the ranges
    assert set(ranges) == set(meta.profiles(paper)["default"])


def test_a_profile_file_without_ranges_or_with_a_bad_one_is_refused(tmp_path):
    f = tmp_path / "profiles.yaml"
    f.write_text("smoke: {k: 1}\ndefault: {k: 10}\npaper: {k: 10}\n")
    with pytest.raises(ParameterError, match="no 'ranges:'"):
        load_ranges(f)
    f.write_text("smoke: {k: 1}\ndefault: {k: 10}\npaper: {k: 10}\nranges: {k: {int: [2, null]}}\n")
    with pytest.raises(ParameterError, match="profile 'smoke'.*'k' = 1"):
        load_ranges(f)
    f.write_text("smoke: {k: 1}\ndefault: {k: 10}\npaper: {k: 10}\nranges: {}\n")
    with pytest.raises(ParameterError, match=r"missing \['k'\]"):
        load_ranges(f)


def test_check_value_names_parameter_value_and_range():
    with pytest.raises(ParameterError, match=r"parameter 'x' = 5 is outside its range: it must be an integer in \[0, 3\]"):
        check_value("x", 5, {"int": [0, 3]})
    check_value("x", None, {"int": [0, 3], "nullable": True})
    with pytest.raises(ParameterError, match="'x' = True"):
        check_value("x", True, {"int": [0, 3]})  # a bool is not an integer here


def test_the_cli_keeps_an_empty_value_and_refuses_it(capsys, monkeypatch):
    monkeypatch.setattr("papermill.execute_notebook", lambda *a, **k: pytest.fail("the chapter ran"), raising=False)
    assert main(["run", "01", "--profile", "smoke", "-p", "pairs", ""]) == 2  # was: the profile's pairs
    assert "'pairs' = ''" in capsys.readouterr().err
    assert main(["run", "01", "--profile", "smoke", "-p", "layers", "foo"]) == 2
    assert "'layers' = 'foo'" in capsys.readouterr().err


# ---------------------------------------------------------------- papermill used directly
def test_a_name_papermill_injected_that_the_chapter_lacks_is_an_error():
    namespace = {"profile": "smoke", "n_pair": 5, "In": ["", 'profile = "smoke"\nn_pairs = None\n',
                                                           "# Parameters\nprofile = \"smoke\"\nn_pair = 5\n"]}
    with pytest.raises(ParameterError, match=r"unknown parameter\(s\) \['n_pair'\]; valid names: .*n_pairs"):
        meta.parameters("gaschi2022", "smoke", namespace)
    namespace["In"][-1] = "# Parameters\nn_pairs = 50\n"
    assert meta.parameters("gaschi2022", "smoke", {**namespace, "n_pairs": 50}).n_pairs == 50


def test_papermill_run_of_a_notebook_refuses_a_misspelt_name(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    pm = pytest.importorskip("papermill")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('profile = "smoke"\nn_pairs = None', metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell('from xalign.papers.meta import parameters\n'
                                          'P = parameters("gaschi2022", profile, globals())\nprint(P.n_pairs)')]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    source = tmp_path / "nb.ipynb"
    nbformat.write(nb, source)
    with pytest.raises(pm.PapermillExecutionError, match=r"unknown parameter\(s\) \['n_pair'\]"):
        pm.execute_notebook(str(source), str(tmp_path / "out1.ipynb"), parameters={"n_pair": 5},
                            kernel_name="python3", progress_bar=False)
    with pytest.raises(pm.PapermillExecutionError, match=r"'n_pairs' = 'abc' is outside its range"):
        pm.execute_notebook(str(source), str(tmp_path / "out2.ipynb"), parameters={"n_pairs": "abc"},
                            kernel_name="python3", progress_bar=False)
    assert sys.executable  # the kernel is this environment's python3


def test_a_model_path_that_is_no_model_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("papermill.execute_notebook", lambda *a, **k: pytest.fail("the chapter ran"), raising=False)
    assert main(["run", "01", "--profile", "smoke", "--model", str(tmp_path / "missing")]) == 2
    assert "missing' does not exist" in capsys.readouterr().err
    (tmp_path / "model.bin").write_bytes(b"0")
    with pytest.raises(ParameterError, match=r"parameter 'model': model path .*model.bin' is a file"):
        check_parameters(CH1, {"profile": "smoke", "model": str(tmp_path / "model.bin")})


@pytest.mark.parametrize("chapter", sorted(meta.metadata(p)["chapter"] for p in meta.PAPERS))
def test_a_model_path_with_a_space_is_a_model(chapter):
    """A saved model in '/data/my models/e5' was refused ("must be a string matching '\\S+'")."""
    ranges = meta.ranges(meta.chapter_paper(chapter))
    names = [n for n in ("model", "multi_model", "reference_model") if n in ranges]
    assert names, chapter
    for name in names:
        check_value(name, "/data/my models/e5", ranges[name])
        with pytest.raises(ParameterError):
            check_value(name, " leading-space", ranges[name])
