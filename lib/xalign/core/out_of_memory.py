"""Out of memory, named: the allocator's own words ("could not create a primitive", "DefaultCPUAllocator:
can't allocate memory", "CUDA out of memory") become one :class:`MemoryError` that says which model ran
out, with how much work at once, and what to do."""

from __future__ import annotations

import contextlib

#: what torch, oneDNN and CUDA say when an allocation fails (a RuntimeError, not a MemoryError)
OOM_MARKERS = ("could not create a primitive", "can't allocate memory", "DefaultCPUAllocator",
               "out of memory", "OutOfMemoryError")


def is_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is an allocation failure (a MemoryError, or a RuntimeError in an allocator's words)."""
    return isinstance(exc, MemoryError) or (isinstance(exc, RuntimeError) and any(m in str(exc) for m in OOM_MARKERS))


@contextlib.contextmanager
def named_out_of_memory(model: str, batch_tokens: int):
    """Turn an allocation failure inside the block into a MemoryError naming ``model`` and the tokens it
    encoded at once (``batch_tokens``), with what to do; any other error passes unchanged."""
    try:
        yield
    except (MemoryError, RuntimeError) as exc:
        if not is_out_of_memory(exc):
            raise
        raise MemoryError(
            f"{model}: out of memory while encoding up to {batch_tokens:,} tokens at once "
            f"({type(exc).__name__}: {str(exc).splitlines()[0][:160]}). Free memory (other programs, "
            "other chapters: `xalign book --jobs 1`), or encode fewer tokens at once "
            f"(the encoder's batch_tokens, now {batch_tokens:,})") from exc
