"""Progress bars (tqdm) that rendered book pages can switch off.

``XALIGN_PROGRESS=0`` disables them (the book build sets it, so executed
notebooks carry no bar debris); interactive runs show them.
"""

from __future__ import annotations

import os

from tqdm import tqdm


def enabled() -> bool:
    return os.environ.get("XALIGN_PROGRESS", "1") not in ("0", "false", "no")


def bar(iterable=None, **kwargs):
    """``tqdm(iterable, **kwargs)``, disabled when progress is switched off."""
    kwargs["disable"] = kwargs.get("disable", False) or not enabled()
    return tqdm(iterable, **kwargs)
