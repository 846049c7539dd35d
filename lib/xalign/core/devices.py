"""Which device the encoders run on, and the work sizes that suit it.

A CPU wants small batches that stay in its caches; a GPU wants batches large enough to hide its
kernel launches, and cache chunks large enough to fill them (a batch never spans two chunks).
"""

from __future__ import annotations

import os

#: environment variable: padded tokens per encoding batch for every encoder loaded without its own
#: ``batch_tokens`` (another batch shape, another padding and summation order: ``xalign check``'s second test)
BATCH_TOKENS_ENV = "XALIGN_BATCH_TOKENS"


def default_device() -> str:
    """``"cuda"`` where torch sees a GPU, else ``"cpu"``."""
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:  # pragma: no cover
        return "cpu"


CPU_BATCH_TOKENS = 1024
#: a GPU runs a 1,024-token batch in about the time its kernels take to launch: measured on an H100
#: (e5-small, 4,000 WMT19 sentences), 1,024 / 4,096 / 16,384 tokens per batch gave 69k / 151k / 168k
#: tokens/s in float16, with chunks of 256 texts (about 7,700 tokens of WMT19 sentences)
GPU_BATCH_TOKENS = 16384
CPU_CHUNK_TEXTS = 256
#: a batch never spans two cache chunks: on a GPU a chunk holds enough texts to fill several batches
GPU_CHUNK_TEXTS = 4096


def is_gpu(device) -> bool:
    """Is ``device`` (a name such as ``"cuda:1"``, a ``torch.device``, or None for the CPU) a CUDA GPU?"""
    return device is not None and str(device).startswith("cuda")


def default_batch_tokens(device: str) -> int:
    """Padded tokens per batch where the caller names none: ``$XALIGN_BATCH_TOKENS`` when set, else
    :data:`GPU_BATCH_TOKENS` on ``cuda`` and 1,024 on a CPU.

    Raises:
        ValueError: ``XALIGN_BATCH_TOKENS`` is set to something other than an integer from 1 to 1,048,576.
    """
    raw = os.environ.get(BATCH_TOKENS_ENV, "").strip()
    if raw:
        if not raw.isdigit() or not 1 <= int(raw) <= 2**20:
            raise ValueError(f"{BATCH_TOKENS_ENV}={raw!r}: padded tokens per batch must be an integer from 1 to "
                             f"{2**20:,}")
        return int(raw)
    return GPU_BATCH_TOKENS if is_gpu(device) else CPU_BATCH_TOKENS


def default_chunk_size(device: str) -> int:
    """Texts per cache chunk where the caller names none: :data:`GPU_CHUNK_TEXTS` on ``cuda``, else 256.

    The chunk's texts are part of its cache key, so a GPU's caches are keyed apart from a CPU's (as its
    float16 ones are anyway).
    """
    return GPU_CHUNK_TEXTS if is_gpu(device) else CPU_CHUNK_TEXTS
