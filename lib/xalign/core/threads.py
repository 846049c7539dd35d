"""Thread caps for torch work: one helper instead of a copy per module."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def torch_threads(n: int | None = 1, blas: bool = False):
    """Run the block on ``n`` torch threads and restore the previous setting afterwards.

    ``None`` or ``0`` leaves torch's setting alone; ``blas`` caps numpy's BLAS pools to ``n``
    too (threadpoolctl). Small matrices gain nothing from more threads, and oversubscribed
    cores make them much slower (threads that spin-wait).
    """
    if n is not None and (not isinstance(n, int) or n < 0):
        raise ValueError(f"torch_threads: n must be a non-negative int or None, got {n!r}")
    import torch

    old = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        if blas and n:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(n):
                yield
        else:
            yield
    finally:
        torch.set_num_threads(old)
