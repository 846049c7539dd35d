"""Liu, McCarthy, Vulić, Korhonen (2020): aligning contextual embeddings, the BTSR task (chapter 2).

The method (the BTSR set, encoded spaces, type vectors, anchors, maps and their scores) is general and
lives one floor down, in :mod:`xalign.measures.btsr` (the card's ``btsr_p1`` uses it too), with its
vocabulary (levels ``token`` / ``avg_type`` / ``iso_type``, signals ``wa`` / ``sa`` / ``dict``,
techniques ``orig`` / ``mim``). This package holds the chapter's experiments.

Where things live (import the module you need):

- :mod:`~xalign.papers.liu2020.grid`: the whole grid (every method x training size) and the original space;
- :mod:`~xalign.papers.liu2020.memos`: the memo keys of the chapter's scored tables;
- :mod:`~xalign.papers.liu2020.inputs`: the chapter's encoders, each seed's sets, spaces and word-similarity
  items (built with :mod:`xalign.measures.btsr`);
- :mod:`~xalign.papers.liu2020.audit`: before/after of the audit, known-answer checks;
- :mod:`~xalign.papers.liu2020.senses`: per-item scores by sense (word form, ties);
- :mod:`~xalign.papers.liu2020.seeds`: the run over several seeds (mean, spread, verdicts that hold for
  every seed);
- :mod:`~xalign.papers.liu2020.experiments`: the chapter's run; :mod:`~xalign.papers.liu2020.report`,
  :mod:`~xalign.papers.liu2020.everymap`, :mod:`~xalign.papers.liu2020.itemclaims`: its tables, claims and
  computed prose; :mod:`~xalign.papers.liu2020.figures`: its figures.
"""
