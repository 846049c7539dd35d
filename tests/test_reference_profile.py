"""Each reference/<chapter>.json is the book's run: the chapter's default profile, its precision included."""

import json

import pytest

from xalign.book.check import REFERENCE_DIR, reference_profile_problems
from xalign.papers import meta

PROFILE = {"seed": 0, "layers": "all", "autocast": "float32"}


def _ref(**params):
    return {"profile": "default", "params": {"profile": "default", **params}}


def test_a_reference_that_matches_its_profile_passes():
    assert reference_profile_problems(_ref(seed=0, layers="all", autocast="float32"), PROFILE) == []
    # any spelling of "no autocast" is float32
    assert reference_profile_problems(_ref(seed=0, layers="all", autocast=None), PROFILE) == []
    recorded = {**_ref(seed=0, layers="all", autocast="auto"), "precision": "torch.float32"}
    assert reference_profile_problems(recorded, PROFILE) == []


def test_a_bfloat16_reference_of_a_float32_profile_fails():
    problems = reference_profile_problems(_ref(seed=0, layers="all", autocast="bfloat16"), PROFILE)
    assert len(problems) == 1 and "precision bfloat16" in problems[0]


def test_a_changed_or_missing_parameter_fails():
    assert reference_profile_problems(_ref(seed=1, layers="all", autocast=""), PROFILE) == [
        "parameter seed = 1, profile: 0"]
    assert reference_profile_problems(_ref(layers="all", autocast=""), PROFILE) == [
        "parameter seed not recorded (profile: 0)"]
    assert "profile 'smoke'" in reference_profile_problems({**_ref(seed=0, layers="all"), "profile": "smoke"},
                                                           {"seed": 0, "layers": "all"})[0]


def test_auto_accepts_either_precision_once_recorded():
    auto = {"autocast": "auto"}
    assert reference_profile_problems({**_ref(autocast="auto"), "precision": "bfloat16"}, auto) == []
    assert reference_profile_problems(_ref(autocast="bfloat16"), auto) == []  # read from the parameter
    assert "not recorded" in reference_profile_problems(_ref(autocast="auto"), auto)[0]


CHAPTERS = {meta.metadata(p)["chapter"]: p for p in meta.PAPERS}


@pytest.mark.parametrize("chapter", sorted(CHAPTERS))
def test_committed_reference_is_the_default_profile_run(chapter):
    path = REFERENCE_DIR / f"{chapter}.json"
    assert path.exists(), f"{path} missing: the book's reference for chapter {chapter}"
    ref = json.loads(path.read_text(encoding="utf-8"))
    problems = reference_profile_problems(ref, meta.profiles(CHAPTERS[chapter])["default"])
    assert not problems, f"{path.name} is not the default profile's run: " + "; ".join(problems)
