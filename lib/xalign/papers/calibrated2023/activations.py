"""Bounded activation memory for the fine-tuning loop, with bit-identical results.

A training step keeps every layer's activations until the backward pass: about
``ACTIVATION_BYTES`` bytes per padded token, layer and hidden unit (measured on
e5-small: 2.1 GB for the default profile's longest step, 4,480 padded tokens).
:class:`Recompute` lets a step keep only the inputs of its first ``k`` layers
and recompute their activations during the backward pass
(``torch.utils.checkpoint``, non-reentrant, RNG state preserved, so dropout
draws the same masks): losses, gradients and weights are bit-identical to a
step that keeps everything, at the cost of one more forward pass through those
``k`` layers. :func:`layers_to_recompute` picks ``k`` per step from a budget.
"""

from __future__ import annotations

import functools

ACTIVATION_BYTES = 104  # bytes kept per padded token, layer and hidden unit (e5-small, float32, eager dropout)


class Recompute:
    """Per-step activation checkpointing of the first ``k`` layers of a transformer's layer stack.

    ``set(k)`` before a step; layers ``< k`` then keep only their input and recompute their
    activations in the backward pass (``torch.utils.checkpoint``, non-reentrant, RNG state
    preserved: identical dropout masks, identical numbers). ``close()`` restores the layers.
    """

    def __init__(self, model):
        import torch

        stacks = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList)]
        self.layers = list(max(stacks, key=len)) if stacks else []
        self.k = 0
        for i, layer in enumerate(self.layers):
            layer.forward = functools.partial(self._forward, i, layer.forward)

    def _forward(self, i, forward, *args, **kwargs):
        import torch
        from torch.utils.checkpoint import checkpoint

        if i < self.k and torch.is_grad_enabled():
            return checkpoint(forward, *args, use_reentrant=False, **kwargs)
        return forward(*args, **kwargs)

    def set(self, k: int) -> None:
        self.k = max(0, min(int(k), len(self.layers)))

    def close(self) -> None:
        for layer in self.layers:
            layer.__dict__.pop("forward", None)


def layers_to_recompute(padded_tokens: int, n_layers: int, hidden: int, budget_gb: float | None) -> int:
    """How many of the first layers a step recomputes so that its kept activations, about
    ``padded_tokens * layers * hidden * ACTIVATION_BYTES`` bytes, stay within ``budget_gb``."""
    if budget_gb is None or n_layers == 0:
        return 0
    per_layer = padded_tokens * hidden * ACTIVATION_BYTES
    keep = int(budget_gb * 1e9 // max(per_layer, 1))
    return max(0, n_layers - keep)


