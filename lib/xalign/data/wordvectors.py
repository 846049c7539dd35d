"""Candidate vocabularies and static word vectors for bilingual lexicon induction.

Vocabularies: the top-N words of a maintained frequency list
(:func:`frequency_vocabulary`, from ``wordfreq``), or the words of a
bilingual dictionary (:func:`dictionary_vocabulary`; Sinhala, which wordfreq
does not cover). Vectors: a multilingual encoder fed one word at a time
(:func:`encoder_word_vectors`: "contextualised models give fixed embeddings
when a single word is fed", Wickramasinghe and de Silva Sec. 5), a
sentence-transformers model's own sentence embedding of the word
(:func:`sentence_transformer_word_vectors`, what the paper did with LaBSE),
or fastText ``.vec`` files (:func:`xalign.data.static.read_vec`). All return
:class:`xalign.data.static.StaticVectors`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from xalign.data.static import StaticVectors

POOLINGS = ("word", "sentence", "first")
PIECE_WORDS = 4096  # words per encode call (16 CPU cache chunks): how often the progress bar moves


def clean_words(words: Iterable[str], lowercase: bool = True) -> list[str]:
    """Unique single tokens in input order: lower-cased, no whitespace or control characters, and
    at least one visible character (zero-width joiners are kept inside words, never alone)."""
    out, seen, raw_seen = [], set(), set()
    for w in words:
        if w in raw_seen:  # a repeated entry (dictionaries list a word once per pair) gives nothing new
            continue
        raw_seen.add(w)
        w = w.strip()
        if lowercase:
            w = w.lower()
        if not any(c.isprintable() for c in w):
            continue
        if any(c.isspace() or not c.isprintable() and c not in "\u200c\u200d" for c in w):
            continue
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


def frequency_vocabulary(lang: str, n: int, wordlist: str = "best") -> list[str]:
    """The ``n`` most frequent words of ``lang`` from ``wordfreq`` (lower-cased, unique).

    Raises ValueError for languages wordfreq has no list for (it would
    silently fall back to a related language otherwise), e.g. Sinhala.
    Lists can be shorter than ``n`` (wordfreq's Tamil and Turkish lists
    have about 65,000 words).
    """
    import wordfreq

    if n < 1:
        raise ValueError(f"n must be positive, got {n}")
    if lang not in wordfreq.available_languages(wordlist):
        raise ValueError(f"wordfreq has no {wordlist!r} list for {lang!r}; use dictionary_vocabulary() "
                         f"(available: {', '.join(sorted(wordfreq.available_languages(wordlist)))})")
    words = clean_words(wordfreq.top_n_list(lang, n + n // 10 + 100, wordlist=wordlist))
    return words[:n]


def dictionary_vocabulary(dictionaries: Sequence[Sequence[tuple[str, str]]], sides: Sequence[int],
                          n: int | None = None) -> list[str]:
    """Words of one language from bilingual dictionaries, in order of first appearance.

    ``dictionaries[i]`` is a list of (source, target) pairs and ``sides[i]``
    says which column (0 or 1) holds the language wanted.
    """
    if len(dictionaries) != len(sides):
        raise ValueError(f"{len(dictionaries)} dictionaries but {len(sides)} sides")
    if any(s not in (0, 1) for s in sides):
        raise ValueError(f"sides must be 0 or 1, got {list(sides)}")
    words = clean_words(p[s] for d, s in zip(dictionaries, sides) for p in d)
    return words[:n] if n else words


def encoder_word_vectors(encoder, words: Sequence[str], layer: int = -1, pooling: str = "word",
                         desc: str | None = None) -> StaticVectors:
    """One vector per word, the word fed to ``encoder`` alone; (n_words, dim) float32.

    ``pooling``: ``"word"`` = mean of the word's own sub-word vectors (the
    prefix, e.g. e5's ``"query: "``, and special tokens excluded);
    ``"sentence"`` = mean over all tokens (the model's sentence pooling);
    ``"first"`` = the first token (``[CLS]`` / ``<s>``). ``layer``: hidden
    state index (0 = embeddings, -1 = last). With ``"word"`` pooling, words
    that cover no token of their own (:func:`encodable`) are left out of the
    result.
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    words = list(words)
    if not words:
        raise ValueError("no words to encode")
    if len(set(words)) != len(words):
        raise ValueError("words must be unique (use clean_words)")
    ok, counts = _word_tokens(encoder, words)  # one (cached) tokenisation for both
    if pooling == "word":
        words, counts = [w for w, keep in zip(words, ok) if keep], counts[ok]
    return StaticVectors(words, _unpadded_vectors(encoder, words, counts, layer, pooling, desc))


def _unpadded_vectors(encoder, words: list[str], counts: np.ndarray, layer: int, pooling: str,
                      desc: str | None) -> np.ndarray:
    """(n_words, dim) float32: the words (with their ``counts`` of tokens) encoded in runs of equal
    token count, longest first.

    No batch pads a word, so no time goes to padding (in chunks of 256 words in list order, 16% of
    chapter 4's batch tokens were padding). Runs are cut into pieces of :data:`PIECE_WORDS` so that
    the one progress bar keeps moving.
    """
    from xalign.core.progress import bar

    order = np.argsort(-counts, kind="stable")
    runs = np.split(order, np.flatnonzero(np.diff(counts[order])) + 1)
    pieces = [run[s : s + PIECE_WORDS] for run in runs for s in range(0, len(run), PIECE_WORDS)]
    out = np.empty((len(words), encoder.dim), np.float32)
    progress = bar(total=len(words), desc=desc or f"encode {encoder.name}", unit="word",
                   disable=not encoder.progress or len(words) < 2 * encoder.chunk_size)
    shown, encoder.progress = encoder.progress, False  # one bar for the list, not one per piece
    try:
        for idx in pieces:
            ws = [words[i] for i in idx]
            if pooling == "word":
                x = encoder.encode(ws, spans=[[(0, len(w))] for w in ws], poolings=(), layers=[layer])["words"]
            else:
                key = "mean" if pooling == "sentence" else "first"
                x = encoder.encode(ws, poolings=(key,), layers=[layer])[key]
            out[idx] = x[:, 0, :]
            progress.update(len(idx))
    finally:
        encoder.progress = shown
        progress.close()
    return out


def encodable(encoder, words: Sequence[str]) -> np.ndarray:
    """(n_words,) bool: does the word, fed alone after the encoder's prefix, cover at least one token?

    A word made only of characters the tokenizer normalises away has no
    sub-word of its own, so it cannot get a word vector. The answer for a
    whole list is kept in the encoder's cache, with each word's token count
    (tokenising 200,000 words takes most of a warm run otherwise).
    """
    return _word_tokens(encoder, words)[0]


def _word_tokens(encoder, words: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(encodable (n,) bool, tokens (n,) int64 as the encoder feeds each word alone), cached per list."""
    from xalign.core.hashing import text_hash
    from xalign.core.memo import cached

    words = list(words)
    key = {"model": encoder.name, "revision": encoder.revision, "prefix": encoder.prefix,
           "max_length": encoder.max_length, "words": text_hash(words)}
    return cached("wordvectors.word_tokens", key, lambda: _tokenize_words(encoder, words), code=[type(encoder)],
                  store=getattr(encoder, "cache", None))


def _tokenize_words(encoder, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    shift = len(encoder.prefix)
    _, offsets = encoder._tokenize(words)  # the encoder's own tokenisation (prefix, truncation)
    ok = np.array([any(b > a and a < len(w) + shift and b > shift for a, b in offs)
                   for w, offs in zip(words, offsets)], bool)
    return ok, np.array([len(offs) for offs in offsets], np.int64)


def sentence_transformer_word_vectors(model_name: str, words: Sequence[str], batch_size: int = 512,
                                      device: str | None = None, cache=None) -> StaticVectors:
    """The sentence-transformers embedding of each word fed alone (the paper's LaBSE vectors).

    Cached per chunk of 4096 words in the representation cache.
    """
    from xalign.core.cache import EmbeddingCache
    from xalign.core.hashing import text_hash
    from xalign.core.pretrained import load_sentence_transformer
    from xalign.core.progress import inline as progress_inline

    words = list(words)
    cache = cache or EmbeddingCache()
    model = None
    chunks = []
    for start in range(0, len(words), 4096):
        chunk = words[start:start + 4096]
        key = {"model": model_name, "kind": "sentence-transformers-word", "inputs": text_hash(chunk)}
        got = cache.get(key)
        if got is None:
            if model is None:
                model = load_sentence_transformer(model_name, device=device)
            x = model.encode(chunk, batch_size=batch_size, convert_to_numpy=True,
                             show_progress_bar=len(words) > batch_size and progress_inline()).astype(np.float32)
            cache.put(key, x=x)
            got = {"x": x}
        chunks.append(got["x"])
    return StaticVectors(words, np.concatenate(chunks))


def _select(vectors: StaticVectors, words: Sequence[str]) -> StaticVectors:
    """The words of ``words`` that have a vector in ``vectors``, in the order of ``words``."""
    kept = [w for w in words if w in vectors]
    return StaticVectors(kept, vectors.lookup(kept))


def subset(vectors: StaticVectors, mask: np.ndarray) -> StaticVectors:
    """The words (and vectors) where ``mask`` is True, in the same order."""
    mask = np.asarray(mask, bool)
    if mask.shape != (len(vectors.words),):
        raise ValueError(f"mask has shape {mask.shape}, expected ({len(vectors.words)},)")
    idx = np.flatnonzero(mask)
    return StaticVectors([vectors.words[i] for i in idx], vectors.vectors[idx])


BACKENDS = ("layer", "sentence-transformers")


class WordEncoder:
    """Static word vectors from one multilingual model: ``WordEncoder(...)(words) -> StaticVectors``.

    ``backend="layer"``: :func:`encoder_word_vectors` with an
    :class:`xalign.core.encoders.Encoder` (any layer, ``pooling`` as there;
    ``autocast="bfloat16"`` for the faster CPU path, ``"auto"`` for bfloat16
    where the CPU computes it natively, ``None``/``"float32"`` for exact fp32).
    ``backend="sentence-transformers"``: the model's own sentence embedding of each word (:func:`sentence_transformer_word_vectors`).
    ``name`` and ``revision`` identify the model for the results file.
    """

    def __init__(self, model: str, backend: str = "layer", layer: int = -1, pooling: str = "word",
                 autocast: str | None = None, device: str | None = None, progress: bool = True):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        self.name, self.backend, self.layer, self.pooling = model, backend, layer, pooling
        self.device = device
        self.encoder = None
        self._released: str | None = None  # describe() of a released encoder
        if backend == "layer":
            from xalign.core.loading import load_encoder

            self.encoder = load_encoder(model, device=device, progress=progress)
            self.encoder.autocast = autocast  # resolved (None, "float32", "auto", ...) by xalign.core.precision
            self.revision = self.encoder.revision
        else:
            self.revision = "sentence-transformers"

    def __call__(self, words: Sequence[str], desc: str | None = None) -> StaticVectors:
        if self._released is not None:
            raise RuntimeError(f"WordEncoder({self.name!r}) was released (release() dropped its model); "
                               "create a new WordEncoder to encode more words")
        if self.encoder is not None:
            return encoder_word_vectors(self.encoder, words, self.layer, self.pooling, desc=desc)
        return sentence_transformer_word_vectors(self.name, words, device=self.device)

    def encode_lists(self, lists: Mapping[str, Sequence[str]], desc: str | None = None) -> dict[str, StaticVectors]:
        """Vectors of several word lists (name -> unique words) from one pass over their union.

        A word in two lists is encoded once and both get the same vector. Encoded with other
        words, a word's vector can differ in its last bits (~1e-7: matrix products round
        differently for another batch size), as between any two batchings. Words without a
        vector of their own are left out, as in :func:`encoder_word_vectors`. Memory: the union's
        vectors and the lists' copies at once (chapter 4's default profile: 0.8 GB).
        """
        for name, words in lists.items():
            if len(set(words)) != len(words):
                raise ValueError(f"word list {name!r}: words must be unique (use clean_words)")
        union = list(dict.fromkeys(w for words in lists.values() for w in words))
        every = self(union, desc=desc or f"encode {len(lists)} word lists ({len(union):,} distinct words)")
        return {name: _select(every, words) for name, words in lists.items()}

    def release(self) -> None:
        """Drop the model (its weights: ~0.5 GB for e5-small in float32) once every word is encoded.

        ``name``, ``revision`` and :meth:`describe` stay; calling the encoder again raises.
        Chapter 4 releases it before the BLI grid, whose similarity blocks need the memory.
        """
        if self._released is None:
            self._released = self.describe()
            for name in ("n_truncated_texts", "n_blank_texts"):  # what the encoder counted outlives it
                setattr(self, name, getattr(self.encoder, name, 0))
            self.encoder = None
            import gc

            gc.collect()

    def describe(self) -> str:
        if self._released is not None:
            return self._released
        if self.encoder is not None:
            from xalign.core.precision import resolve_autocast

            layer = self.layer % self.encoder.n_layers
            return (f"{self.name}, layer {layer} of {self.encoder.n_layers - 1}, {self.pooling} pooling, "
                    f"{resolve_autocast(self.encoder.autocast, self.encoder.device) or 'float32'}")
        return f"{self.name} (sentence-transformers sentence embedding of the word)"
