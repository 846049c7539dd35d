"""Bilingual Token-level Sense Retrieval (BTSR, Liu et al. 2019 Sec. 4) and the maps it scores: the method of
chapter 2 (:mod:`xalign.papers.liu2020`) and of the card's ``btsr_p1`` step (:mod:`xalign.card.words`).

Vocabulary (the labels of Liu et al. 2020, Table 1; :mod:`.constants`):

- alignment level: ``token`` (aligned words in parallel sentences, in
  context), ``avg_type`` (a word's mean contextual vector over up to 1000
  contexts of the training text), ``iso_type`` (the word fed alone);
- training signal: ``wa`` (word alignments of parallel text, fast_align),
  ``sa`` (parallel sentences, each represented by the average of its words'
  vectors of the chosen level), ``dict`` (MUSE 0-5000 training dictionary;
  type levels only);
- technique: ``orig`` (orthogonal Procrustes) or ``mim`` (plus
  Meeting-in-the-Middle), both from :mod:`xalign.measures.mapping`.

A word's contextual vector is the average of the chosen layers (default:
every Transformer layer, 1..12, as the paper's footnote 1), then of its
sub-words. Every sentence of a corpus side is encoded once with the spans of
all its words.

Where things live (import the module you need):

- :mod:`.testset`: the BTSR set (pairs, contexts, selection, candidates) and P@k;
- :mod:`.pairdata`: a language pair's corpus, links, BTSR set (cached, :data:`.pairdata.BTSR_CODE`) and
  splits, from the lexicons of :mod:`xalign.data.lexicons` (WordNet, OMW, MUSE);
- :mod:`.spaces`, :mod:`.typevectors`: encoded spaces, avg_type / iso_type tables;
- :mod:`.anchors`: anchors and maps (and the unmapped baseline);
- :mod:`.evaluate`: BTSR precision, sentence retrieval, the spaces of one pair.
"""
