"""The runner checks a chapter's parameters (names and types) before any work starts."""

import pytest

from xalign.book.cli import main
from xalign.book.params import check_parameters
from xalign.core.profiles import ParameterError

CH1 = "01_weak_strong_alignment"


def test_a_misspelled_name_is_refused_with_the_valid_names():
    with pytest.raises(ParameterError, match=r"unknown parameter\(s\) \['n_pair'\]; valid names: .*n_pairs"):
        check_parameters(CH1, {"profile": "smoke", "n_pair": 10})


def test_a_value_of_the_wrong_type_is_refused():
    with pytest.raises(ParameterError, match=r"'n_pairs' must be int .* got str 'abc'"):
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
