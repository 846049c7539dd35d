"""Exact top-k of each row of a similarity block through group maxima, without a full-width top-k.

A row of ``n`` scores is laid out as ``g x Q`` (``Q = n // g``) and a tail of ``n mod g``
columns: group ``c`` holds the columns ``c, c + Q, c + 2Q, ...``. Strided groups make the group
maxima one reduction over the middle axis of a ``(b, g, Q)`` view, which vectorises along Q. The
k largest entries of a row lie in the tail or in the k groups with the largest maxima (each of
them is >= the k-th largest entry, and at most k groups hold one), so a row's top-k is the top-k
of the ``k * g`` entries of those groups and the tail's, found after a top-k over the Q group
maxima. At n = 20,000 and g = 16: 1,250 + 160 entries per row instead of 20,000 (torch's top-k costs 1-3 ns per entry on a CPU, as much as the bf16
product that made the block).

**Group maxima from the bits.** The entries are read as signed integers of their width (bf16 and
float16 as int16, float32 as int32, float64 as int64). A non-negative float (sign bit clear)
orders like its bits; a negative one is a negative integer (in reversed order, which does not matter below). So the
integer maximum of a group, clamped at 0, is the group's float maximum when the group holds an
entry >= 0 and 0, an upper bound, when it does not. The integer reduction runs 3-4x faster than
torch's bf16 maximum on an AMX CPU. Which groups are taken follows these bounds, and a row is
accepted only when its k-th largest gathered entry is >= the bound of the best group left out;
other rows (those with fewer than k entries >= 0) get a plain top-k. The values are exact in
every case; among equal entries, which positions are returned is unspecified (as for
``torch.topk``).

Inputs must be finite (``-inf`` is allowed, e.g. for masked columns). The bounds, positions and
entries live in :func:`~xalign.core.memory.scratch` buffers (reused inside ``blocks_reused``), valid
until the next call.
"""

from __future__ import annotations

from typing import NamedTuple

from xalign.core.memory import scratch

GROUP = 16  # columns per group: at n = 20,000 the fastest of 16 / 32 / 64 in bf16 and float32 (bench/)


class TopGroups(NamedTuple):
    """The groups a row's top-k is read from (shapes for a (b, width) block, Q = width // g)."""

    bounds: object     # (b, Q) upper bound of each group's maximum (exact where the group has an entry >= 0)
    groups: object     # (b, k) the k groups with the largest bounds
    left_out: object   # (b,) the largest bound among the other groups (-inf where there are none)
    positions: object  # (b, k * g + tail) columns of the entries of those groups, then the tail's
    entries: object    # (b, k * g + tail) those entries


def group_bounds(S, group: int = GROUP):
    """Upper bounds of the maxima of the ``Q = width // group`` strided groups of ``S``.

    Group c holds the columns ``c, c + Q, ..., c + (group - 1) Q``; the last ``width % group``
    columns (the tail) are in no group. Exact for a group that holds an entry >= 0; 0 for a group
    of negative entries.

    Args:
        S: (b, width) scores (torch), rows contiguous (any row stride).
        group: columns per group.

    Returns:
        (b, Q) bounds, S's dtype.
    """
    import torch

    b, width = S.shape
    if S.stride(1) != 1 and width > 1:
        raise ValueError(f"the rows of S must be contiguous (column stride {S.stride(1)})")
    Q = width // group
    bits = S.view(_bits(S))
    strided = bits.as_strided((b, group, Q), (bits.stride(0), Q, 1), bits.storage_offset())
    out = scratch("group bounds", (b, Q), bits.dtype, S.device)
    return torch.amax(strided, 1, out=out).clamp_(min=0).view(S.dtype)


def _bits(S):
    """The signed integer type of S's width (float64 -> int64, float32 -> int32, bfloat16 / float16 -> int16)."""
    import torch

    if not S.is_floating_point() or S.element_size() not in (2, 4, 8):
        raise TypeError(f"expected a block of floats (float64, float32, bfloat16, float16), got {S.dtype}")
    return {2: torch.int16, 4: torch.int32, 8: torch.int64}[S.element_size()]


def top_groups(S, k: int, group: int = GROUP) -> TopGroups:
    """The k groups of each row with the largest bounds, their entries (and the tail's), and the best bound left out.

    Args:
        S: (b, width) scores (torch).
        k: groups taken per row (all where there are at most k).
        group: columns per group.

    Returns:
        A :class:`TopGroups` (the chosen groups (b, k), their columns and entries, every group's bound).
    """
    import torch

    b, width = S.shape
    Q = width // group
    bounds = group_bounds(S, group)
    if Q > k:  # bounds are >= 0, where integers order like the floats (and sort faster)
        top = bounds.view(_bits(S)).topk(k + 1, dim=1)
        groups, left_out = top.indices[:, :k], top.values[:, k].view(S.dtype).float()
    else:  # every group is taken
        groups = torch.arange(Q, device=S.device).expand(b, Q)
        left_out = torch.full((b,), float("-inf"), device=S.device)
    offsets = torch.arange(group, device=S.device) * Q
    n_tail = width - group * Q
    positions = scratch("group positions", (b, groups.shape[1] * group + n_tail), torch.int64, S.device)
    torch.add(groups[:, :, None], offsets, out=positions[:, : groups.shape[1] * group].view(b, -1, group))
    if n_tail:  # the tail is always read
        positions[:, groups.shape[1] * group :] = torch.arange(group * Q, width, device=S.device)
    entries = torch.gather(S, 1, positions, out=scratch("group entries", positions.shape, S.dtype, S.device))
    return TopGroups(bounds, groups, left_out, positions, entries)


def topk_values(S, k: int, group: int = GROUP, chosen: TopGroups | None = None):
    """The k largest entries of each row of ``S``, exact, in descending order.

    Args:
        S: (b, width) scores (torch), width >= k.
        k: entries per row.
        group: columns per group.
        chosen: :func:`top_groups` of ``S`` for this k, if the caller has it already.

    Returns:
        (b, k) tensor of S's dtype.
    """
    import torch

    chosen = chosen if chosen is not None else top_groups(S, k, group)
    values = chosen.entries.topk(k, dim=1).values
    unsure = values[:, -1].float() < chosen.left_out
    if bool(unsure.any()):
        rows = torch.nonzero(unsure).flatten()
        values[rows] = S[rows].topk(k, dim=1).values
    return values
