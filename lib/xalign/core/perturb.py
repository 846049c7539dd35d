"""Embeddings perturbed at float32 rounding scale: what another CPU kind changes, reproduced on this one.

A rerun on another machine reads the same texts through other kernels, summation orders and batch
shapes; its vectors differ from ours in their last bits (``bench/embedding_rounding.py`` measures it:
up to about 4 float32 ulps of a vector's largest element when the batch shapes change). Everything
downstream (retrieval ties, probes, example choices, verdicts) then moves by as much as it amplifies
those bits. ``xalign check --measure-variation`` reruns a chapter with this module active to measure
that amplification per table.

Active only when the environment names it, ``XALIGN_PERTURB=<ulps>:<seed>`` (e.g. ``4:1``):

- every embedding array read from the cache gets ``x + ulps * 2**-23 * max|x_vector| * N(0, 1)`` per
  element, rounded back to float32, the noise drawn from ``seed`` and the vector's own bits
  (:func:`vector_noise`): a vector is perturbed the same way wherever it is read, and vectors that are equal
  stay equal, as one input through one kernel gives one result on any machine; the cache itself is never
  written perturbed;
- a fine-tuning run starts from the base model's weights moved the same way (:func:`perturb_weights`; each
  weight row as a vector), every gradient of every step is moved the same way (:func:`perturb_gradients`),
  and the run is cached under a perturbed key: training amplifies the last bits of its arithmetic as another
  machine's does (chapter 3's fine-tuned encoder on a Xeon moved its STS by 0.025, four times what
  perturbing its embeddings alone did);
- every value derived from embeddings and stored by key (memo entries, probe fits, BLI grids: all but
  the embeddings themselves and :data:`PLAIN_STORES`) gets the perturbation in its key, so a perturbed
  run neither reads the plain values nor leaves perturbed ones where a plain run would read them.

:func:`install` wires this into :class:`xalign.core.cache.EmbeddingCache` at import time (``import
xalign`` calls it when the variable is set); a plain run is untouched.
"""

from __future__ import annotations

import hashlib
import os
import re

import numpy as np

#: the environment variable that turns the perturbation on: "<ulps>:<seed>"
ENV = "XALIGN_PERTURB"
#: the scale (sigma, in float32 ulps of a vector's largest element) the harness uses unless told otherwise:
#: the largest move bench/embedding_rounding.py measured when only batch shapes change (4.3), rounded
DEFAULT_ULPS = 4.0
#: how the noise is drawn (part of every perturbed key: values derived under another draw are not reused)
NOISE = "per vector from its own bits (splitmix64, Box-Muller): equal vectors stay equal"
#: stores whose entries do not depend on embeddings (read plain even when perturbed): data, models, word
#: alignments, the BTSR sets (built from texts and alignments). Fine-tuned checkpoints are retrained under a
#: perturbed key (:func:`perturb_weights`).
PLAIN_STORES = ("data", "models", "alignments", "btsr")
_SPEC = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+)\s*$")


def spec(value: str | None = None) -> tuple[float, int] | None:
    """``(ulps, seed)`` from ``XALIGN_PERTURB`` (or ``value``); None when unset or empty.

    Raises:
        ValueError: naming the variable and the valid form when it is set to anything else.
    """
    raw = os.environ.get(ENV, "") if value is None else value
    if not raw.strip():
        return None
    m = _SPEC.match(raw)
    if not m or float(m.group(1)) <= 0:
        raise ValueError(f"{ENV} must be '<ulps>:<seed>' with ulps > 0 and seed an integer >= 0 (e.g. '4:1'), got {raw!r}")
    return float(m.group(1)), int(m.group(2))


def label(s: tuple[float, int]) -> str:
    """``(4.0, 1)`` -> ``"4:1"`` (the form the variable and the keys use)."""
    return f"{s[0]:g}:{s[1]}"


#: splitmix64's constants (Steele, Lea and Flood 2014): a counter-based hash whose outputs pass BigCrush
_GOLDEN, _MIX1, _MIX2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64 (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def vector_noise(x: np.ndarray, seed: int) -> np.ndarray:
    """N(0, 1) noise shaped like ``x`` ((..., dim) float32), each vector's drawn from its own bits and ``seed``.

    Two vectors with the same bits get the same noise, wherever they stand: another machine computes one
    input through one kernel to one result, so vectors that are equal on ours (chapter 5's first token at
    layer 0 is one vector for every sentence: no attention has run yet) stay equal there. Independent noise per
    row would make such a constant column a noise column no machine produces. Distinct vectors get
    independent-looking draws (a splitmix64 hash of the vector's bits and of each element's position, then
    Box-Muller on its two 32-bit halves), in plain vectorised numpy.
    """
    x32 = np.ascontiguousarray(x, dtype=np.float32)
    dim = x32.shape[-1] if x32.ndim else 1
    bits = x32.reshape(-1, dim).view(np.uint32).astype(np.uint64)
    with np.errstate(over="ignore"):
        weights = _mix(np.uint64(seed) * _GOLDEN + np.arange(1, dim + 1, dtype=np.uint64) * _MIX2) | np.uint64(1)
        row = _mix((bits * weights).sum(axis=1, dtype=np.uint64) + np.uint64(seed) * _MIX1)
        counter = row[:, None] + np.arange(1, dim + 1, dtype=np.uint64)[None, :] * (_GOLDEN * np.uint64(2))
        z = _mix(counter)
    u1 = (z >> np.uint64(32)).astype(np.float64) * 2.0**-32  # the two 32-bit halves: two uniforms in [0, 1)
    u2 = (z & np.uint64(0xFFFFFFFF)).astype(np.float64) * 2.0**-32
    normal = np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2.0 * np.pi * u2)  # 1 - u1 in (0, 1]: log is finite
    return normal.reshape(x32.shape)


def perturbed(x: np.ndarray, s: tuple[float, int], salt: str = "") -> np.ndarray:
    """``x`` (..., dim) float with every element moved by ``ulps * 2**-23 * max|vector| * N(0, 1)``, as float32;
    the noise of each vector comes from its own bits (:func:`vector_noise`), so equal vectors stay equal.

    Args:
        x: an embedding array (or a weight matrix), vectors along the last axis.
        s: ``(ulps, seed)``.
        salt: mixed into the seed where one array's noise must be its own (a weight matrix: its parameter's
            name); embeddings take none, so one vector gets one noise in every cache entry.
    """
    ulps, seed = s
    if salt:
        seed = int.from_bytes(hashlib.sha256(f"{seed}:{salt}".encode()).digest()[:8], "little")
    x = np.asarray(x)
    if x.dtype.kind != "f" or x.size == 0:
        return x
    scale = np.abs(x.astype(np.float64)).max(axis=-1, keepdims=True) if x.ndim else abs(float(x))
    noise = vector_noise(x, seed) * (ulps * 2.0**-23) * scale
    return (x.astype(np.float64) + noise).astype(np.float32)


def perturb_weights(module, salt: str, s: tuple[float, int] | None = None) -> bool:
    """Move every floating-point parameter of ``module`` (a torch module) as :func:`perturbed` moves an
    embedding (each row of a weight matrix as a vector), in place, when a perturbation is active.

    Args:
        module: the model about to be trained.
        salt: what makes this run's noise its own (its cache key's digest); a parameter adds its name.
        s: ``(ulps, seed)`` (default: the active one, :func:`spec`).

    Returns:
        whether the weights were moved (False on a plain run: nothing is touched).
    """
    s = spec() if s is None else s
    if s is None:
        return False
    import torch

    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.is_floating_point() and p.numel():
                moved = perturbed(p.detach().cpu().float().numpy(), s, f"{salt}:{name}")
                p.copy_(torch.from_numpy(moved).to(device=p.device, dtype=p.dtype))
    return True


def perturb_gradients(module, salt: str, s: tuple[float, int] | None = None) -> bool:
    """Move every gradient of ``module``'s floating-point parameters at rounding scale, at every backward
    pass, when a perturbation is active: ``ulps * 2**-23 * max|row| * N(0, 1)`` per element (each row of a
    gradient as a vector), seeded by the run, the parameter and the step.

    Another machine's arithmetic differs in every operation of every training step, not only in the
    starting weights (:func:`perturb_weights`): chapter 3's fine-tuned encoder on a Xeon moved its STS by
    0.0085 points where starting weights moved at rounding scale moved it by 0.0018. A hook per parameter
    adds that difference where the optimiser reads it. Returns whether hooks were registered.
    """
    s = spec() if s is None else s
    if s is None:
        return False
    import torch

    ulps, seed = s
    for name, p in module.named_parameters():
        if not (p.requires_grad and p.is_floating_point()):
            continue
        base = int.from_bytes(hashlib.sha256(f"{seed}:{salt}:{name}".encode()).digest()[:7], "little")
        step = [0]

        def hook(grad, base=base, step=step):
            step[0] += 1
            g = torch.Generator(device="cpu").manual_seed(base + step[0])
            scale = grad.abs().amax(dim=-1, keepdim=True) if grad.dim() else grad.abs()
            noise = torch.randn(grad.shape, generator=g, dtype=torch.float32).to(grad.device, grad.dtype)
            return grad + noise * scale * (ulps * 2.0**-23)

        p.register_hook(hook)
    return True


#: how a harness rerun perturbs training (part of a perturbed training run's key: another method retrains)
TRAINING_NOISE = "starting weights and every gradient of every step (perturb_weights, perturb_gradients)"


def training_key(key: dict, s: tuple[float, int] | None = None) -> dict:
    """A training run's cache key with the active perturbation and :data:`TRAINING_NOISE` added (``key``
    itself on a plain run)."""
    s = spec() if s is None else s
    return key if s is None else {**variant_key(key, s), "training_noise": TRAINING_NOISE}


def variant_key(key: dict, s: tuple[float, int] | None = None) -> dict:
    """``key`` with the active perturbation added (``key`` itself when none is active)."""
    s = spec() if s is None else s
    return key if s is None else {**key, "perturbed": label(s), "noise": NOISE}


def is_embedding(key: dict) -> bool:
    """Does ``key`` name a model's output for input texts (an encoder's cache key has both ``model`` and
    ``inputs``), rather than a value derived from such outputs?"""
    return "model" in key and "inputs" in key


def install() -> None:
    """Make :class:`~xalign.core.cache.EmbeddingCache` perturbed when ``XALIGN_PERTURB`` is set (see the module
    docstring); nothing when it is not. Idempotent."""
    s = spec()
    if s is None:
        return
    from xalign.core.cache import EmbeddingCache

    if getattr(EmbeddingCache, "_perturbed", None) == s:
        return
    plain_path, plain_get = EmbeddingCache.path, EmbeddingCache.get

    def path(self, key: dict):  # embeddings and inputs under their own key; derived values under a perturbed one
        plain = self.root.name in PLAIN_STORES or is_embedding(key)
        return plain_path(self, key if plain else variant_key(key, s))

    def get(self, key: dict):
        out = plain_get(self, key)
        if out is None or self.root.name in PLAIN_STORES or not is_embedding(key):
            return out
        return {name: perturbed(a, s) for name, a in out.items()}

    EmbeddingCache.path, EmbeddingCache.get = path, get
    EmbeddingCache._perturbed = s
