"""Freed memory: given back to the system (glibc), or kept and reused by a loop of large blocks.

glibc keeps freed blocks below its mmap threshold in the heap, and raises that threshold (up
to 32 MiB) as large blocks are freed; a process that allocates and frees many large arrays of
changing sizes (training steps, encoding chunks) then keeps a heap as large as its worst
moment. :func:`freed_memory_returned` lowers the threshold for a block of work and trims the
heap at its end; :func:`return_freed_memory` only trims.

The other side: a block served by ``mmap`` comes back as fresh pages that the kernel faults in
and zeroes, 4 KiB at a time, every time it is allocated. A loop that allocates the same large
block again and again (a similarity block per query block, a k-NN product per loss evaluation)
then spends a quarter of its time in the kernel. Inside :func:`blocks_reused`,
:func:`scratch` hands such a loop the same buffer each time instead. (Keeping every freed block
in glibc's heap instead, with ``M_MMAP_MAX = 0``, removed the faults too but grew chapter 4's
BLI grid from 2.3 to 6.9 GB: aligned allocations of one size fragment the heap.)
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
from contextvars import ContextVar

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
GLIBC_MMAP_CEILING = 32 << 20  # the highest threshold glibc's dynamic rule reaches (64-bit)


@functools.cache
def _glibc():
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:  # not glibc (macOS, musl, Windows)
        return None


@contextlib.contextmanager
def freed_memory_returned(threshold_mb: float = 8.0):
    """Inside, glibc serves every allocation above ``threshold_mb`` MiB by its own ``mmap``, so that a
    large freed activation goes back to the system at once instead of fragmenting the heap (by
    default glibc raises that threshold to 32 MiB as large blocks are freed, and training's changing
    tensor shapes then keep growing its heap). On exit the threshold is set to that usual ceiling
    and the heap is trimmed. A no-op where the C library is not glibc.

    Measured on e5-small's default-profile fine-tuning (8 of its steps, the longest included, after
    loading the chapter's encoders): peak RSS 3.9 GB with a 1.5 GB activation budget alone, 3.5 GB
    with 1.0 GB, 3.3 GB with 1.0 GB and this at 8 MiB (no more page faults than without it; at
    1 MiB: 3.2 GB but 14x the page faults, +35% CPU time); the whole 96-step run: 4.3 -> 3.5 GB.
    Chapter 1 encodes each language pair inside it (:class:`xalign.measures.incontext.EncodedPairs`)."""
    libc = _glibc()
    if libc is not None:
        libc.mallopt(M_MMAP_THRESHOLD, int(threshold_mb * (1 << 20)))
    try:
        yield
    finally:
        if libc is not None:
            libc.mallopt(M_MMAP_THRESHOLD, GLIBC_MMAP_CEILING)
        return_freed_memory()


def return_freed_memory() -> None:
    """Collect garbage and trim glibc's heap (a no-op elsewhere)."""
    import gc

    gc.collect()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


_BUFFERS: ContextVar[dict | None] = ContextVar("xalign_scratch_buffers", default=None)


@contextlib.contextmanager
def blocks_reused():
    """Inside, :func:`scratch` keeps one buffer per name and hands it out again, so a loop's large
    blocks are allocated (and their pages faulted in) once, not once per block. On exit the
    buffers are dropped. Nested, the inner block shares the outer's buffers.

    Measured on chapter 4's BLI grid (20 directions, every method, 20,000-word vocabularies, one
    thread, beside the code before): 701 s -> 548 s, page faults 69.8 M -> 7.7 M, system time
    165 s -> 26 s, peak 2.36 -> 2.47 GB, all 720 result rows identical. ``bench/page_faults.py``
    measures one cell of it."""
    if _BUFFERS.get() is not None:
        yield
        return
    token = _BUFFERS.set({})
    try:
        yield
    finally:
        _BUFFERS.reset(token)


def scratch(name: str, shape: tuple[int, ...], dtype=None, device=None):
    """An uninitialised torch tensor of ``shape`` (``dtype``, default float32, on ``device``).

    Outside :func:`blocks_reused` a new tensor. Inside, a view of the buffer kept under ``name``
    (reallocated only when too small or of another dtype or device): the caller must be done
    with the previous tensor of that name before asking again, and must not return it.
    """
    import torch

    dtype = dtype or torch.float32
    buffers = _BUFFERS.get()
    if buffers is None:
        return torch.empty(shape, dtype=dtype, device=device)
    n = math.prod(shape)
    want = torch.device(device if device is not None else "cpu")
    buf = buffers.get(name)
    if buf is None or buf.numel() < n or buf.dtype != dtype or buf.device.type != want.type or \
            (want.index is not None and buf.device.index != want.index):
        buffers[name] = None  # the old buffer goes first: one of them at a time
        buf = buffers[name] = torch.empty(n, dtype=dtype, device=device)
    return buf[:n].view(shape)
