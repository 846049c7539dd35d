"""Thread caps for torch work: one helper instead of a copy per module."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def torch_threads(n: int | None = 1):
    """Run the block on ``n`` torch threads and restore the previous setting afterwards.

    ``None`` or ``0`` leaves torch's setting alone. Small matrices gain nothing
    from more threads, and oversubscribed cores make them much slower.
    """
    if n is not None and (not isinstance(n, int) or n < 0):
        raise ValueError(f"torch_threads: n must be a non-negative int or None, got {n!r}")
    import torch

    old = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)
