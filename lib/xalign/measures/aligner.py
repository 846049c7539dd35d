"""Statistical word alignment with eflomal (IBM-model family, like fast_align).

fast_align itself is not installable here; eflomal (Ostling and Tiedemann
2016) is a Bayesian IBM model 1-3 aligner of the same family and a common
stronger substitute. Both directions are aligned and symmetrised with
grow-diag-final-and (Koehn et al. 2005), the usual setting for fast_align too.

eflomal's sampler seeds itself from /dev/urandom (it has no seed option), so
two runs on the same text differ slightly. Links are therefore cached on disk
(``$XALIGN_CACHE/alignments``, keyed by the text and the settings): a rerun
reads the same links back instead of sampling new ones.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

SYMMETRISATIONS = ("grow-diag-final-and", "intersection", "union", "forward", "reverse")


def align_eflomal(src_sentences: list[list[str]], tgt_sentences: list[list[str]],
                  symmetrisation: str = "grow-diag-final-and", seed: int = 1,
                  model: int = 3, cache: bool = True) -> list[set[tuple[int, int]]]:
    """Word alignment links per sentence pair, by eflomal.

    Args:
        src_sentences: per pair, its source tokens (lower-case them first).
        tgt_sentences: per pair, its target tokens.
        symmetrisation: how the two directions combine (:func:`symmetrise`).
        seed: part of the cache key (a new seed gives a fresh sample); eflomal itself cannot be seeded.
        model: eflomal's model (1-3).
        cache: False always runs the aligner.

    Returns:
        Per pair, a set of (source index i, target index j) links.
    """
    if symmetrisation not in SYMMETRISATIONS:
        raise ValueError(f"symmetrisation must be one of {SYMMETRISATIONS}, got {symmetrisation!r}")
    if len(src_sentences) != len(tgt_sentences):
        raise ValueError(f"{len(src_sentences)} source vs {len(tgt_sentences)} target sentences")
    if not cache:
        return _run_eflomal(src_sentences, tgt_sentences, symmetrisation, model)
    from xalign.core.cache import EmbeddingCache, text_hash
    from xalign.core.paths import cache_dir

    store = EmbeddingCache(cache_dir("alignments"))  # same store class, its own folder
    key = {"kind": "eflomal-links", "inputs": text_hash([json.dumps([src_sentences, tgt_sentences],
                                                                     ensure_ascii=False)]),
           "symmetrisation": symmetrisation, "seed": seed, "model": model}
    cached = store.get_json(key)
    if cached is not None:
        return [{(i, j) for i, j in links} for links in cached]
    out = _run_eflomal(src_sentences, tgt_sentences, symmetrisation, model)
    store.put_json(key, [sorted(links) for links in out])
    return out


def _run_eflomal(src_sentences, tgt_sentences, symmetrisation, model) -> list[set[tuple[int, int]]]:
    import eflomal
    # eflomal cannot take empty sentences: give them a placeholder and drop their links
    empty = [not s or not t for s, t in zip(src_sentences, tgt_sentences)]
    src_lines = [" ".join(s) if s else "<empty>" for s in src_sentences]
    tgt_lines = [" ".join(t) if t else "<empty>" for t in tgt_sentences]
    with tempfile.TemporaryDirectory() as tmp:
        fwd, rev = Path(tmp) / "fwd", Path(tmp) / "rev"
        aligner = eflomal.Aligner(model=model)
        aligner.align(src_lines, tgt_lines, links_filename_fwd=str(fwd), links_filename_rev=str(rev),
                      quiet=True)
        forward = [_parse_links(line) for line in fwd.read_text().splitlines()]
        reverse = [_parse_links(line) for line in rev.read_text().splitlines()]
    if len(forward) != len(src_lines) or len(reverse) != len(src_lines):
        raise RuntimeError("eflomal returned a different number of sentences than it was given")
    out = []
    for k, (f, r) in enumerate(zip(forward, reverse)):
        if empty[k]:
            out.append(set())
            continue
        out.append(symmetrise(f, r, len(src_sentences[k]), len(tgt_sentences[k]), symmetrisation))
    return out


def _parse_links(line: str) -> set[tuple[int, int]]:
    return {tuple(int(x) for x in tok.split("-")) for tok in line.split()}


def symmetrise(forward: set[tuple[int, int]], reverse: set[tuple[int, int]], n_src: int, n_tgt: int,
               method: str = "grow-diag-final-and") -> set[tuple[int, int]]:
    """Combine the two directional alignments.

    Args:
        forward: source->target links, as (src i, tgt j).
        reverse: target->source links, also as (src i, tgt j).
        n_src: source tokens.
        n_tgt: target tokens.
        method: one of :data:`SYMMETRISATIONS` (``"forward"`` / ``"reverse"``: one direction only).

    Returns:
        The symmetrised (src i, tgt j) links.
    """
    if method == "forward":
        return set(forward)
    if method == "reverse":
        return set(reverse)
    if method == "intersection":
        return forward & reverse
    if method == "union":
        return forward | reverse
    union = forward | reverse
    links = forward & reverse
    neighbours = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]

    def src_aligned(i):
        return any(a == i for a, _ in links)

    def tgt_aligned(j):
        return any(b == j for _, b in links)

    added = True
    while added:  # grow-diag
        added = False
        for i, j in sorted(links):
            for di, dj in neighbours:
                ni, nj = i + di, j + dj
                if not (0 <= ni < n_src and 0 <= nj < n_tgt) or (ni, nj) in links:
                    continue
                if (ni, nj) in union and (not src_aligned(ni) or not tgt_aligned(nj)):
                    links.add((ni, nj))
                    added = True
    for direction in (forward, reverse):  # final-and
        for i, j in sorted(direction):
            if not src_aligned(i) and not tgt_aligned(j):
                links.add((i, j))
    return links
