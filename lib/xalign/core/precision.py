"""The precision an encoder computes in: bfloat16 autocast only where the hardware does bf16 natively.

bfloat16 autocast is several times faster than float32 on CPUs with AVX512-BF16 or AMX, and
several times *slower* on CPUs without them (an AMD Zen 3 here: 5-7x slower than float32, as
oneDNN emulates the bf16 products). ``autocast="auto"`` therefore means bfloat16 where it is
native and float32 elsewhere; the precision actually used goes into cache keys and results, so
numbers from the two precisions are never mixed.
"""

from __future__ import annotations

import functools
import warnings

EXACT = (None, "", "none", "float32")  # the spellings of "no autocast": exact float32
AUTOCAST_VALUES = (*EXACT, "auto", "bfloat16", "float16")


@functools.cache
def native_bf16(device: str = "cpu") -> bool:
    """True when ``device`` ("cpu", "cuda", "cuda:0", ...) computes bfloat16 matrix products natively."""
    import torch

    kind = device.split(":")[0]
    if kind == "cuda":
        return bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    if kind != "cpu":
        return False
    probe = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    if probe is not None and torch.backends.mkldnn.is_available():
        return bool(probe())
    try:  # older torch: the CPU's own flags
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line for line in f if line.startswith("flags")), "").split()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def resolve_autocast(value: str | None, device: str = "cpu") -> str | None:
    """The autocast dtype to run with: None (exact float32), "bfloat16" or "float16".

    ``"auto"`` is bfloat16 where :func:`native_bf16` holds, else None. An explicit
    ``"bfloat16"`` is kept (the numbers it gives are what was asked for), with a warning
    when the device would emulate it.
    """
    if value not in AUTOCAST_VALUES:
        raise ValueError(f"autocast must be one of {AUTOCAST_VALUES}, got {value!r}")
    if value in EXACT:
        return None
    if value == "auto":
        return "bfloat16" if native_bf16(device) else None
    if value == "bfloat16" and not native_bf16(device):
        _warn_emulated(device)
    return value


@functools.cache
def _warn_emulated(device: str) -> None:  # once per device and process
    warnings.warn(f"bfloat16 autocast on {device!r}, which has no native bf16 (no AVX512-BF16/AMX): it is "
                  "emulated and several times slower than float32 here; autocast='auto' picks float32 on "
                  "such hardware", RuntimeWarning, stacklevel=3)


def precision_of(encoder) -> str:
    """What an encoder's numbers are computed in, as cache keys and results record it.

    ``"bfloat16"`` / ``"float16"`` under autocast, else the weights' dtype name (``"torch.float32"``).
    """
    resolved = resolve_autocast(getattr(encoder, "autocast", None), getattr(encoder, "device", "cpu"))
    return resolved or str(encoder.model.dtype)
