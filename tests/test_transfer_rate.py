"""xalign.measures.transfer: the one transfer rate (the card and chapter 3 call it)."""

import numpy as np
import pandas as pd

from xalign.card.battery import _rate_stat
from xalign.measures.transfer import transfer_rate
from xalign.papers.calibrated2023.transfer import transfer_rate as frame_rate


def test_transfer_rate_known_answers():
    assert transfer_rate(40.0, 80.0) == 50.0
    np.testing.assert_array_equal(transfer_rate(np.array([0.3, 0.9]), np.array([0.6, 0.9])), [50.0, 100.0])
    assert transfer_rate(0.5, 0.0, floor=1e-9) == 100 * 0.5 / 1e-9


def test_card_and_chapter_3_agree_with_it():
    items = np.zeros((4, 2, 2))
    items[:2, 0, 0] = items[:, 0, 1] = 1     # target 0: zero-shot 50%, translate-train-all 100%
    items[:, 1, 0] = items[:, 1, 1] = 1      # target 1: 100% / 100%
    assert _rate_stat(items) == 75.0
    zs, tta = pd.DataFrame({"lang": ["fr", "de"], "value": [50.0, 60.0]}), pd.DataFrame(
        {"lang": ["fr", "de"], "value": [100.0, 80.0]})
    assert list(frame_rate(zs, tta)["value"]) == list(transfer_rate(zs["value"].to_numpy(), tta["value"].to_numpy()))
