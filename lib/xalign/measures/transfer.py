"""The transfer rate: zero-shot accuracy as a percentage of translate-train-all accuracy.

``rate = 100 x zero-shot / translate-train-all`` (the calibrated-retrieval paper's Table 4), for a
probe trained on the source language only (zero-shot) and one trained on every language's
training set (translate-train-all), both tested on the same target-language rows. The model card
(:mod:`xalign.card.battery`) and chapter 3 (:mod:`xalign.papers.calibrated2023`) call it.
"""

from __future__ import annotations

import numpy as np


def transfer_rate(zero_shot, translate_train_all, floor: float | None = None):
    """100 x zero-shot / translate-train-all accuracy, elementwise.

    Args:
        zero_shot: accuracies (a float or an (n,) array, any unit: fractions or %).
        translate_train_all: the matching accuracies, in the same unit.
        floor: divide by ``max(translate_train_all, floor)`` instead (the card's bootstrap draws,
            where a resample can score 0); None: divide as given.

    Returns:
        The rate(s) in % (a numpy float or an (n,) float array).
    """
    tta = np.asarray(translate_train_all)
    if floor is not None:
        tta = np.maximum(tta, floor)
    return 100 * np.asarray(zero_shot) / tta
