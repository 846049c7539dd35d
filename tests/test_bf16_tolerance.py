"""bf16 autocast vs float32 on the chapters' smoke data: the numbers they report move by < 0.5 points.

Chapter 1: S_weak of the translated-in-context word pairs (smoke profile: de-en and zh-en, 120
WMT19 sentences each, every layer, mean of the profile's runs), compared per language pair on
the mean over layers and on Table I's best and last layer. Chapter 3: Tatoeba accuracy (both
directions) of de and sw, every layer, on 100 pairs per language (the smoke profile's 16 pairs
make one sentence worth 6 points, too coarse to test a 0.5-point tolerance), compared on the
mean over layers and the best layer. Single layers at N = 150 pairs can move by one or two
pairs (0.7-1.3 points); the per-layer maxima are printed, not asserted. Chapter 4 had a test here
(BLI P@1 on 10,000-word vocabularies, every cell within 0.5 points): it held on an Intel CPU with
AMX and failed on an AMD Zen 4 (AVX512-BF16 without AMX: Zh->En, CSLS, the model's own space, 0.56
points), so chapter 4 computes in float32 again
and the test went with its bf16. A whole default-profile run of chapter 4 under bf16 on the AMX CPU
(20,000-word vocabularies) later moved one of Table 2's 160 cells by 0.55 points against float32 on
the same CPU (``bench/precision_diff.py``): on AMX too the half point does not hold for chapter 4.
"""

import numpy as np
import pandas as pd
import pytest

from xalign.core.loading import load_encoder
from xalign.papers.meta import profiles

pytestmark = pytest.mark.slow
TOLERANCE = 0.5  # points (x 100)


@pytest.fixture(scope="module")
def encoders():
    return {p: load_encoder("multilingual-e5-small", progress=False) for p in ("float32", "bfloat16")}


def _set_precision(encoders):
    encoders["bfloat16"].autocast = "bfloat16"
    encoders["float32"].autocast = None
    return encoders


def _compare(frame: pd.DataFrame, group: str) -> pd.DataFrame:
    """Per group: |bf16 - fp32| of the mean over layers, of the best layer's value, max over layers."""
    rows = []
    for g, df in frame.groupby(group):
        w = df.pivot_table(index="layer", columns="precision", values="value")
        best = w["float32"].idxmax()
        rows.append({group: g, "mean over layers": abs(w["bfloat16"].mean() - w["float32"].mean()),
                     "best layer": abs(w.loc[best, "bfloat16"] - w.loc[best, "float32"]),
                     "last layer": abs(w["bfloat16"].iloc[-1] - w["float32"].iloc[-1]),
                     "max over layers": (w["bfloat16"] - w["float32"]).abs().max()})
    out = pd.DataFrame(rows)
    print(out.round(2).to_string())
    return out


def test_chapter1_s_weak_within_tolerance(encoders):
    from xalign.data import corpora as C
    from xalign.data import word_pairs as PR
    from xalign.measures import incontext as IC
    from xalign.measures import retrieval as R
    from xalign.papers.gaschi2022 import weakstrong as WS

    P = profiles("gaschi2022")["smoke"]
    frames = []
    for lp in P["pairs"].split(","):
        src, tgt = lp.split("-")
        corpus = C.parallel_corpus(P["corpora"].split(","), lp, P["max_sentences"])
        dictionary = C.muse_dictionary(lp)
        wp = PR.extract_dictionary_pairs(*PR.tokenize_parallel(corpus, src, tgt, dictionary), dictionary,
                                         distinct=False)
        for prec, enc in _set_precision(encoders).items():
            encoded = {lp: (IC.encode_side(enc, [s for s, _ in corpus], IC.spans_needed(wp, "src")),
                            IC.encode_side(enc, [t for _, t in corpus], IC.spans_needed(wp, "tgt")))}
            runs = WS.pair_layer_scores({lp: wp}, encoded, lambda U, V: R.s_weak(U, V, P["k"]), P["n_pairs"],
                                        P["runs"], P["seed"], list(range(enc.n_layers)))
            frames.append(runs.groupby(["pair", "layer"], as_index=False)["value"].mean()
                          .assign(precision=prec, value=lambda d: 100 * d["value"]))
    diff = _compare(pd.concat(frames), "pair")
    assert (diff[["mean over layers", "best layer", "last layer"]] < TOLERANCE).all().all()


def test_chapter3_tatoeba_within_tolerance(encoders):
    from xalign.papers.calibrated2023 import calibrated as cal

    frames = []
    for prec, enc in _set_precision(encoders).items():
        df = cal.tatoeba_retrieval(enc, ["de", "sw"], n=100, seed=0)
        frames.append(df[df.direction != "mean"].assign(precision=prec,
                                                        group=lambda d: d["lang"] + " " + d["direction"]))
    diff = _compare(pd.concat(frames), "group")
    assert np.all(diff[["mean over layers", "best layer"]] < TOLERANCE)
