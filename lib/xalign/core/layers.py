"""Layer specifications, parsed once: ``None``/``"all"``, an int, ``"1,6,12"``, ``"1-12"`` or a list.

Layer 0 is the embedding layer; ``n_layers`` counts it (12 Transformer layers -> 13).
Negative indices count from the top (-1 = the last layer).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def parse_layers(spec, n_layers: int, default: str = "all") -> list[int]:
    """Resolve ``spec`` to sorted-as-given, non-negative layer indices in ``0..n_layers-1``.

    ``None`` means ``default``: ``"all"`` (0..n_layers-1) or ``"transformer"`` (1..n_layers-1,
    every Transformer layer without the embedding layer). Raises ``ValueError`` naming the
    bad layers and the valid range.
    """
    if spec is None:
        spec = default
    if isinstance(spec, str):
        s = spec.strip().lower()
        if s == "all":
            return list(range(n_layers))
        if s == "transformer":
            return list(range(1, n_layers))
        if s == "last":
            return [n_layers - 1]
        out: list[int] = []
        for part in s.split(","):
            part = part.strip()
            if not part:
                continue
            if "-" in part[1:]:
                a, b = part.split("-", 1) if not part.startswith("-") else (part, "")
                out += list(range(int(a), int(b) + 1))
            else:
                out.append(int(part))
        layers = out
    elif np.isscalar(spec):
        layers = [int(spec)]
    elif isinstance(spec, (Sequence, np.ndarray)):
        layers = [int(x) for x in spec]
    else:
        raise ValueError(f"layers: expected None, 'all', an int, '1,6,12', '1-12' or a list, got {spec!r}")
    if not layers:
        raise ValueError("layers: an empty list selects nothing; give at least one layer or None for all")
    bad = [x for x in layers if not -n_layers <= x < n_layers]
    if bad:
        raise ValueError(f"layers {bad} out of range (0..{n_layers - 1}, 0 = embedding layer, -1 = last)")
    return [x % n_layers for x in layers]
