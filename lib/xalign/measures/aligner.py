"""Statistical word alignment: fast_align (default, deterministic) or eflomal (unseeded variant).

Both align the two directions and symmetrise them with grow-diag-final-and
(Koehn et al. 2005), the setting Gaschi et al. (2022) and Liu et al. (2019)
used with fast_align. ``"grow-diag-final-and"`` grows as the authors' ``atools
-c grow-diag-final-and`` does (clab/fast_align ``src/atools.cc``: each pass
scans the union's links not yet taken in (i, j) order); the point-by-point
pseudo-code of Koehn et al. (scanning the neighbours of each taken link) is
``"grow-diag-final-and-koehn"`` and keeps a few more links.

- ``fast_align`` (:mod:`xalign.measures.fast_align`, Dyer et al. 2013, written
  from the paper) has no randomness: the same text gives byte-identical links
  on every run, at any thread count.
- ``eflomal`` (Ostling and Tiedemann 2016, a Bayesian IBM 1-3 sampler) seeds
  itself from /dev/urandom and cannot be seeded: two cold runs differ. It stays
  available as a labelled variant (:data:`UNSEEDED` names it).

Links are cached on disk (``$XALIGN_CACHE/alignments``), keyed by the text, the
aligner's name and every parameter of it.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import asdict
from pathlib import Path

from xalign.core.code_closure import code_digest
from xalign.measures.fast_align import FastAlignSettings, fast_align_both

SYMMETRISATIONS = ("grow-diag-final-and", "grow-diag-final-and-koehn", "intersection", "union", "forward",
                   "reverse")
ALIGNERS = ("fast_align", "eflomal")
#: aligners whose links change from one cold run to the next (no seed reaches their sampler)
UNSEEDED = frozenset({"eflomal"})
#: bump when fast_align's code changes its links (part of the cache key)


def align_words(src_sentences: list[list[str]], tgt_sentences: list[list[str]], aligner: str = "fast_align",
                symmetrisation: str = "grow-diag-final-and", seed: int = 1, cache: bool = True,
                settings: FastAlignSettings | None = None) -> list[set[tuple[int, int]]]:
    """Symmetrised links (source i, target j) per sentence pair; inputs are token lists (lower-case them first).

    Args:
        aligner: ``"fast_align"`` (deterministic) or ``"eflomal"`` (unseeded: a cold cache samples anew).
        symmetrisation: one of :data:`SYMMETRISATIONS`.
        seed: eflomal only, a cache-key part (a new seed gives a fresh sample); fast_align draws nothing.
        cache: False always runs the aligner.
        settings: fast_align's model settings (default: the authors' ``-d -o -v``).
    Returns:
        one set of links per sentence pair (empty for a pair with an empty side).
    """
    if aligner not in ALIGNERS:
        raise ValueError(f"aligner must be one of {ALIGNERS}, got {aligner!r}")
    if aligner == "eflomal":
        if settings is not None:
            raise ValueError("settings are fast_align's; eflomal takes none")
        return align_eflomal(src_sentences, tgt_sentences, symmetrisation, seed=seed, cache=cache)
    return align_fast_align(src_sentences, tgt_sentences, symmetrisation, settings=settings, cache=cache)


def _check_inputs(src_sentences, tgt_sentences, symmetrisation):
    if symmetrisation not in SYMMETRISATIONS:
        raise ValueError(f"symmetrisation must be one of {SYMMETRISATIONS}, got {symmetrisation!r}")
    if len(src_sentences) != len(tgt_sentences):
        raise ValueError(f"{len(src_sentences)} source vs {len(tgt_sentences)} target sentences")


def _cached(key_parts: dict, src_sentences, tgt_sentences, compute, cache: bool) -> list[set[tuple[int, int]]]:
    if not cache:
        return compute()
    from xalign.core.cache import EmbeddingCache
    from xalign.core.hashing import text_hash
    from xalign.core.paths import cache_dir

    store = EmbeddingCache(cache_dir("alignments"))  # same store class, its own folder
    key = {**key_parts, "inputs": text_hash([json.dumps([src_sentences, tgt_sentences], ensure_ascii=False)])}
    cached = store.get_json(key)
    if cached is not None:
        return [{(i, j) for i, j in links} for links in cached]
    out = compute()
    store.put_json(key, [sorted(links) for links in out])
    return out


def align_fast_align(src_sentences: list[list[str]], tgt_sentences: list[list[str]],
                     symmetrisation: str = "grow-diag-final-and", settings: FastAlignSettings | None = None,
                     cache: bool = True) -> list[set[tuple[int, int]]]:
    """fast_align in both directions, symmetrised; deterministic. Cached under the aligner's name and settings."""
    _check_inputs(src_sentences, tgt_sentences, symmetrisation)
    settings = settings or FastAlignSettings()

    def compute():
        forward, reverse, _ = fast_align_both(src_sentences, tgt_sentences, settings)
        return [symmetrise(f, r, len(s), len(t), symmetrisation)
                for f, r, s, t in zip(forward, reverse, src_sentences, tgt_sentences)]

    key = {"kind": "fast_align-links", "aligner": "fast_align", "symmetrisation": symmetrisation,
           "code": code_digest(FAST_ALIGN_CODE), **asdict(settings)}
    return _cached(key, src_sentences, tgt_sentences, compute, cache)


def align_eflomal(src_sentences: list[list[str]], tgt_sentences: list[list[str]],
                  symmetrisation: str = "grow-diag-final-and", seed: int = 1,
                  model: int = 3, cache: bool = True) -> list[set[tuple[int, int]]]:
    """Word alignment links per sentence pair, by eflomal (unseeded: see the module docstring).

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
    _check_inputs(src_sentences, tgt_sentences, symmetrisation)
    key = {"kind": "eflomal-links", "symmetrisation": symmetrisation, "seed": seed, "model": model,
           "code": code_digest(EFLOMAL_CODE)}
    return _cached(key, src_sentences, tgt_sentences,
                   lambda: _run_eflomal(src_sentences, tgt_sentences, symmetrisation, model), cache)


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

    rows, cols = {i for i, _ in links}, {j for _, j in links}  # aligned source / target positions

    def add(i, j):
        links.add((i, j))
        rows.add(i)
        cols.add(j)

    if method == "grow-diag-final-and-koehn":  # the pseudo-code: grow from each taken link's neighbours
        added = True
        while added:
            added = False
            for i, j in sorted(links):
                for di, dj in neighbours:
                    ni, nj = i + di, j + dj
                    if not (0 <= ni < n_src and 0 <= nj < n_tgt) or (ni, nj) in links:
                        continue
                    if (ni, nj) in union and (ni not in rows or nj not in cols):
                        add(ni, nj)
                        added = True
    else:  # atools: each pass scans the union's untaken links in (i, j) order, taking those that qualify now
        pending = sorted(union - links)
        while pending:
            taken = []
            for i, j in pending:
                if (i not in rows or j not in cols) and any((i + di, j + dj) in links for di, dj in neighbours):
                    add(i, j)
                    taken.append((i, j))
            if not taken:
                break
            pending = [p for p in pending if p not in links]
    for direction in (forward, reverse):  # final-and
        for i, j in sorted(direction):
            if i not in rows and j not in cols:
                add(i, j)
    return links


#: the code each aligner's cached links are keyed on (bound at import, so that a test standing in for the
#: aligner changes what runs on a miss, not the key)
FAST_ALIGN_CODE = (fast_align_both, symmetrise)
EFLOMAL_CODE = (_run_eflomal, symmetrise)
