"""autocast "auto": bfloat16 only where the hardware computes it natively; the precision used keys the cache."""

import warnings

import numpy as np
import pytest

from xalign.core import precision as PR


def _cpu_flags() -> set[str]:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
        return set(next((line for line in f if line.startswith("flags")), "").split())


def test_resolution_rules(monkeypatch):
    for exact in (None, "", "none", "float32"):
        assert PR.resolve_autocast(exact) is None
    monkeypatch.setattr(PR, "native_bf16", lambda device="cpu": True)
    assert PR.resolve_autocast("auto") == "bfloat16"
    monkeypatch.setattr(PR, "native_bf16", lambda device="cpu": False)
    assert PR.resolve_autocast("auto") is None
    with pytest.raises(ValueError, match="autocast must be one of"):
        PR.resolve_autocast("bf16")


def test_explicit_bfloat16_is_kept_and_warned_about_where_emulated(monkeypatch):
    monkeypatch.setattr(PR, "native_bf16", lambda device="cpu": False)
    PR._warn_emulated.cache_clear()
    with pytest.warns(RuntimeWarning, match="emulated"):
        assert PR.resolve_autocast("bfloat16", "cpu") == "bfloat16"


def test_native_bf16_matches_the_cpu_flags():
    """oneDNN's own answer agrees with the CPU's flags (AVX512-BF16 or AMX-BF16)."""
    flags = _cpu_flags()
    assert PR.native_bf16("cpu") == ("avx512_bf16" in flags or "amx_bf16" in flags)


@pytest.mark.slow
def test_auto_computes_in_the_resolved_precision_and_keys_the_cache_by_it(tmp_path):
    from xalign.core.cache import EmbeddingCache
    from xalign.core.loading import load_encoder

    texts = ["Der Hund schläft.", "The dog sleeps under the old wooden table."]
    encs = {}
    for name in ("auto", "bfloat16", None):
        enc = load_encoder(progress=False, cache=EmbeddingCache(tmp_path / str(name)))
        enc.autocast = name
        encs[name] = enc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # bf16 emulated on this CPU
        vec = {name: enc.encode_sentences(texts, layers=[6, 12]) for name, enc in encs.items()}
        keys = {name: enc._key("mean", [6, 12], "x")["precision"] for name, enc in encs.items()}
    same_as = "bfloat16" if PR.native_bf16("cpu") else None
    other = None if same_as else "bfloat16"
    assert np.array_equal(vec["auto"], vec[same_as]) and not np.array_equal(vec["auto"], vec[other])
    assert keys["auto"] == keys[same_as] != keys[other]
