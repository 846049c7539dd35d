"""Aligning contextual embeddings across languages (Liu et al. 2020, Sec. 3).

Vocabulary (the paper's Table 1 labels):

- alignment level: ``token`` (aligned words in parallel sentences, in
  context), ``avg_type`` (a word's mean contextual vector over up to 1000
  contexts), ``iso_type`` (the word fed alone);
- training signal: ``wa`` (word alignments of parallel text, eflomal),
  ``sa`` (parallel sentences, each represented by the average of its words'
  vectors of the chosen level), ``dict`` (MUSE 0-5000 training dictionary;
  type levels only);
- technique: ``orig`` (orthogonal Procrustes) or ``mim`` (plus
  Meeting-in-the-Middle), both from :mod:`xalign.measures.mapping`.

A word's contextual vector is the average of the chosen layers (default:
every Transformer layer, 1..12, as the paper's footnote 1), then of its
sub-words. Every sentence of a corpus side is encoded once with the spans of
all its words (:func:`encode_space`).
"""

from __future__ import annotations

from xalign.papers.liu2020.anchors import *
from xalign.papers.liu2020.constants import LEVELS, SIGNALS, TECHNIQUES  # noqa: F401
from xalign.papers.liu2020.evaluate import *
from xalign.papers.liu2020.grid import *
from xalign.papers.liu2020.lexicons import *
from xalign.papers.liu2020.pairdata import *
from xalign.papers.liu2020.spaces import *
from xalign.papers.liu2020.typevectors import *
