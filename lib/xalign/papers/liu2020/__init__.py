"""Liu, McCarthy, Vulić, Korhonen (2020): aligning contextual embeddings, the BTSR task (chapter 2).

Vocabulary (the paper's Table 1 labels):

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

- :mod:`~xalign.papers.liu2020.btsr`: the BTSR set (pairs, contexts, selection, candidates) and P@k;
- :mod:`~xalign.papers.liu2020.lexicons`, :mod:`~xalign.papers.liu2020.pairdata`: WordNet/OMW/MUSE,
  a language pair's corpus, links, BTSR set and splits;
- :mod:`~xalign.papers.liu2020.spaces`, :mod:`~xalign.papers.liu2020.typevectors`: encoded spaces,
  avg_type / iso_type tables;
- :mod:`~xalign.papers.liu2020.inputs`: the chapter's encoders, each seed's sets, spaces and word-similarity
  items; :mod:`~xalign.papers.liu2020.experiments`: the chapter's experiments on them;
- :mod:`~xalign.papers.liu2020.anchors`: anchors and maps (and the unmapped baseline);
- :mod:`~xalign.papers.liu2020.evaluate`, :mod:`~xalign.papers.liu2020.grid`: scores and the whole grid;
- :mod:`~xalign.papers.liu2020.audit`: before/after of the audit, known-answer checks;
- :mod:`~xalign.papers.liu2020.seeds`: the run over several seeds (mean, spread, verdicts that hold for
  every seed);
- :mod:`~xalign.papers.liu2020.report`: the chapter's tables, figures and computed prose.
"""
