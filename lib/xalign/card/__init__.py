"""The model card (``xalign card MODEL``): one model through the five papers' measures, layer by layer.

A product of its own beside the book, one floor below it (``papers`` <- ``card`` <- ``book``): the book's
pages show cards (:mod:`xalign.book.card_page`, :mod:`xalign.book.model_compare`), the card never
imports the book.

- :mod:`.battery`: the battery, its settings record and the result (``run_card``, ``CardConfig``);
- :mod:`.settings`: the card's profiles and their ranges; :mod:`.sizes`: sample sizes in words;
- :mod:`.words` / :mod:`.bitext` / :mod:`.items`: the word-level steps, bitext-mining F1, the per-item
  records kept for paired comparisons;
- :mod:`.receipts`: what each measure was computed on (pooling, prefix, direction, data files);
- :mod:`.precision`: what bfloat16 changes against float32;
- :mod:`.cluster` / :mod:`.sweep`: the steps as tasks on Dask workers;
- :mod:`.mteb_out`: a card's Tatoeba scores written as MTEB results.
"""
