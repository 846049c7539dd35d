"""Task data for feature-based transfer: XNLI sentence pairs and XED emotions.

Readers are strict: a line that is not what the format promises raises
:class:`~xalign.data.readers.DataFormatError` naming the file, the line and what
was expected. Line ends may be LF or CRLF (the XED files and the XNLI dev
files are CRLF); a stray carriage return inside a line is an error.

XNLI (Conneau et al. 2018): ``premise<TAB>hypothesis<TAB>label``; the dev
(2490 rows) and test (5010 rows) files of the 15 languages are line-parallel
and come in groups of three rows that share one premise and carry the three
labels once each. There is no human-labelled training split, so the chapter
trains on dev and tests on test (see :func:`xnli_pairs`).

XED (Öhman et al. 2020): ``text<TAB>labels`` with labels a comma-separated
list of emotion ids 1-8 (``"1, 4, 7"`` is a multi-label line). The projection
files are CSV-quoted: a text that starts with ``"`` is a quoted field with
``""`` for a literal quote, and a few quoted fields run over several physical
lines because they swallowed rows of the alignment metadata. Those records
are not sentences; the reader returns them in ``skipped`` (with their line
range) instead of silently keeping or dropping them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xalign.data.lines import read_lines
from xalign.data.readers import DataFormatError

#: XNLI's 15 languages in the order of the XNLI paper's (and the calibrated-retrieval paper's) columns.
XNLI_LANGUAGES = ("en", "fr", "es", "de", "el", "bg", "ru", "tr", "ar", "vi", "th", "zh", "hi", "sw", "ur")
NLI_LABELS = ("entailment", "neutral", "contradiction")  # SentEval's order (ids 0, 1, 2)
_NLI_ALIASES = {"contradictory": "contradiction"}  # XNLI-MT training files spell it so

XED_EMOTIONS = ("anger", "anticipation", "disgust", "fear", "joy", "sadness", "surprise", "trust")  # ids 1..8
XED_ANNOTATED = ("en", "fi")
XED_PROJECTED = ("de", "es", "fr", "it", "ru", "zh")
_LABELS_RE = re.compile(r"^\s*(\d+)(\s*,\s*\d+)*\s*$")


# --------------------------------------------------------------------------- lines
# --------------------------------------------------------------------------- XNLI
@dataclass(frozen=True)
class NLIPair:
    premise: str
    hypothesis: str
    label: str | None  # one of NLI_LABELS; None for an unlabelled file
    line: int


def read_xnli(path: str | Path, labelled: bool | None = True) -> list[NLIPair]:
    """Rows of an XNLI file: ``premise<TAB>hypothesis[<TAB>label]``.

    ``labelled=True`` requires the label column (entailment / neutral /
    contradiction; ``contradictory`` is read as contradiction), ``False``
    forbids it, ``None`` accepts both (the label is checked where present).
    Lines end in LF or CRLF only: XNLI text contains other Unicode line
    separators (e.g. U+2028 in the Greek test file) that are part of a row.
    """
    path = Path(path)
    want = {True: (3,), False: (2,), None: (2, 3)}[labelled]
    out = []
    for n, line in enumerate(read_lines(path), 1):
        cols = line.split("\t")
        if len(cols) not in want:
            what = {True: "3 tab-separated fields (premise, hypothesis, label)",
                    False: "2 tab-separated fields (premise, hypothesis)",
                    None: "premise<TAB>hypothesis[<TAB>label]"}[labelled]
            raise DataFormatError(f"{path}:{n}: expected {what}, got {len(cols)} fields: {line[:80]!r}")
        if not cols[0].strip() or not cols[1].strip():
            raise DataFormatError(f"{path}:{n}: empty premise or hypothesis")
        label = None
        if len(cols) == 3:
            label = _NLI_ALIASES.get(cols[2].strip(), cols[2].strip())
            if label not in NLI_LABELS:
                raise DataFormatError(f"{path}:{n}: label {cols[2]!r} is not one of {NLI_LABELS}")
        out.append(NLIPair(cols[0], cols[1], label, n))
    return out


def premise_groups(pairs: Sequence) -> np.ndarray:
    """Group id of every row: consecutive rows with the same premise share one (XNLI's triples).

    Rows are :class:`NLIPair` or (premise, hypothesis, label) tuples.
    """
    ids, g, prev = np.zeros(len(pairs), dtype=np.int64), -1, None
    for i, p in enumerate(pairs):
        premise = p.premise if isinstance(p, NLIPair) else p[0]
        if i == 0 or premise != prev:
            g, prev = g + 1, premise
        ids[i] = g
    return ids


def sample_groups(n_rows: int, groups: np.ndarray, n: int | None, seed: int) -> np.ndarray:
    """Row indices of ``n`` rows drawn as whole premise groups (sorted); ``None`` = all rows.

    Whole groups keep XNLI's exact label balance. With the same ``seed`` and
    line-parallel files every language gets the same items.
    """
    if n is None or n >= n_rows:
        return np.arange(n_rows)
    uniq = np.unique(groups)
    size = n_rows / len(uniq)
    k = max(1, round(n / size))
    chosen = np.random.default_rng(seed).choice(uniq, size=min(k, len(uniq)), replace=False)
    return np.flatnonzero(np.isin(groups, chosen))


def xnli_pairs(lang: str, split: str, n: int | None = None, seed: int = 0) -> list[NLIPair]:
    """Labelled XNLI rows of one language: ``split`` is ``"dev"`` (2490) or ``"test"`` (5010).

    The dev file comes from data set ``xnli``, the labelled test from
    ``xnli_test_labelled``; ``n`` rows are sampled as whole premise groups.
    """
    from xalign.data.datasets import fetch

    if lang not in XNLI_LANGUAGES:
        raise ValueError(f"XNLI has no language {lang!r}; languages: {', '.join(XNLI_LANGUAGES)}")
    if split == "dev":
        path = fetch("xnli", f"dev-{lang}.tsv")
    elif split == "test":
        path = fetch("xnli_test_labelled", f"test-{lang}.tsv")
    else:
        raise ValueError(f"split must be 'dev' or 'test', got {split!r}")
    pairs = read_xnli(path)
    idx = sample_groups(len(pairs), premise_groups(pairs), n, seed)
    return [pairs[i] for i in idx]


def nli_label_ids(pairs: Sequence[NLIPair]) -> np.ndarray:
    return np.array([NLI_LABELS.index(p.label) for p in pairs])


# --------------------------------------------------------------------------- XED
@dataclass(frozen=True)
class XedLine:
    text: str
    labels: tuple[int, ...]  # emotion ids 1..8 in file order
    line: int


@dataclass(frozen=True)
class SkippedRecord:
    first_line: int
    last_line: int
    reason: str


@dataclass
class XedFile:
    path: Path
    records: list[XedLine]
    skipped: list[SkippedRecord] = field(default_factory=list)
    line_ends: str = "lf"  # "lf", "crlf" or "mixed"

    def summary(self) -> dict:
        n_labels = Counter(len(r.labels) for r in self.records)
        return {"file": self.path.name, "records": len(self.records),
                "single-label": n_labels.get(1, 0),
                "multi-label": sum(v for k, v in n_labels.items() if k > 1),
                "skipped records": len(self.skipped),
                "skipped lines": sum(s.last_line - s.first_line + 1 for s in self.skipped),
                "line ends": self.line_ends}


def parse_xed_labels(field_: str, where: str, allow_neutral: bool = False) -> tuple[int, ...]:
    """``"1, 4, 7"`` -> (1, 4, 7); ids 1..8 (0 = neutral only if allowed), no repeats."""
    if not _LABELS_RE.match(field_):
        raise DataFormatError(f"{where}: expected emotion ids 1-8 separated by commas, got {field_!r}")
    labels = tuple(int(x) for x in field_.split(","))
    low = 0 if allow_neutral else 1
    bad = [x for x in labels if not low <= x <= 8]
    if bad:
        raise DataFormatError(f"{where}: emotion id(s) {bad} outside {low}-8 in {field_!r}")
    if len(set(labels)) != len(labels):
        raise DataFormatError(f"{where}: repeated emotion id in {field_!r}")
    return labels


def _quoted_end(s: str, start: int) -> int | None:
    """Index of the closing quote of a CSV field opened at ``start - 1``, or None if not on this line."""
    i = start
    while True:
        j = s.find('"', i)
        if j < 0:
            return None
        if j + 1 < len(s) and s[j + 1] == '"':
            i = j + 2
            continue
        return j


def read_xed(path: str | Path, multiline: str = "skip") -> XedFile:
    """An XED annotated or projection file (``text<TAB>labels`` per record).

    Quoted texts (``"..."`` with ``""`` inside) are unquoted. A quoted field
    that runs over several lines is a broken record (it contains alignment
    metadata rows): ``multiline="skip"`` lists it in ``skipped``,
    ``"error"`` raises. Every other malformed line raises.
    """
    if multiline not in ("skip", "error"):
        raise ValueError(f"multiline must be 'skip' or 'error', got {multiline!r}")
    path = Path(path)
    raw = path.read_bytes()
    crlf, lf = raw.count(b"\r\n"), raw.count(b"\n")
    ends = "crlf" if crlf and crlf == lf else ("lf" if not crlf else "mixed")
    lines = read_lines(path)
    out, skipped = [], []
    n = 0
    while n < len(lines):
        first = n + 1
        line = lines[n]
        if line.startswith('"'):
            buf, end = line, _quoted_end(line, 1)
            while end is None and n + 1 < len(lines):
                n += 1
                buf += "\n" + lines[n]
                end = _quoted_end(buf, 1)
            if end is None:
                raise DataFormatError(f"{path}:{first}: quoted text never closed (expected a closing '\"')")
            rest = buf[end + 1:]
            if not rest.startswith("\t") or "\t" in rest[1:]:
                raise DataFormatError(f"{path}:{n + 1}: expected '<TAB>labels' after the quoted text, "
                                      f"got {rest[:40]!r}")
            labels = parse_xed_labels(rest[1:], f"{path}:{n + 1}")
            text = buf[1:end].replace('""', '"')
            if "\n" in text:
                if multiline == "error":
                    raise DataFormatError(f"{path}:{first}-{n + 1}: quoted text runs over "
                                          f"{n + 2 - first} lines (expected one sentence per line)")
                skipped.append(SkippedRecord(first, n + 1, "quoted text over several lines"))
            else:
                out.append(XedLine(text.strip(), labels, first))
            n += 1
            continue
        cols = line.split("\t")
        if len(cols) != 2:
            raise DataFormatError(f"{path}:{first}: expected 2 tab-separated fields (text, labels), "
                                  f"got {len(cols)}: {line[:80]!r}")
        if not cols[0].strip():
            raise DataFormatError(f"{path}:{first}: empty text")
        out.append(XedLine(cols[0].strip(), parse_xed_labels(cols[1], f"{path}:{first}"), first))
        n += 1
    return XedFile(path, out, skipped, ends)


@dataclass(frozen=True)
class NeutralLine:
    text: str
    code: str  # the file's own label column ("9" in neu_en, "2" in neu_fi)
    line: int


def read_xed_neutral(path: str | Path) -> tuple[list[NeutralLine], list[SkippedRecord]]:
    """XED's neutral lines, in either layout.

    ``neu_en.txt``: ``9<TAB>text`` (some lines padded with empty fields);
    ``neu_fi.txt``: ``id<TAB>text<TAB>code<TAB>id<TAB>source file``. Lines whose
    fields are all empty are returned as skipped.
    """
    path = Path(path)
    out, skipped = [], []
    for n, line in enumerate(read_lines(path), 1):
        cols = line.split("\t")
        if not any(c.strip() for c in cols):
            skipped.append(SkippedRecord(n, n, "empty record"))
            continue
        if len(cols) == 5 and cols[0].isdigit() and cols[2].isdigit() and cols[3].isdigit():
            code, text = cols[2], cols[1]
        else:
            while len(cols) > 2 and cols[-1] == "":
                cols = cols[:-1]
            if len(cols) != 2 or not cols[0].isdigit():
                raise DataFormatError(f"{path}:{n}: expected 'code<TAB>text' or "
                                      f"'id<TAB>text<TAB>code<TAB>id<TAB>source', got {line[:80]!r}")
            code, text = cols[0], cols[1]
        if not text.strip():
            raise DataFormatError(f"{path}:{n}: empty text")
        out.append(NeutralLine(text.strip(), code, n))
    return out, skipped


def xed_path(lang: str) -> Path:
    """Local path of the XED file of one language (annotated for en/fi, projections otherwise)."""
    from xalign.data.datasets import fetch

    if lang in XED_ANNOTATED:
        return fetch("xed", f"AnnotatedData/{lang}-annotated.tsv")
    if lang in XED_PROJECTED:
        return fetch("xed", f"Projections/{lang}-projections.tsv")
    raise ValueError(f"XED here has {', '.join(XED_ANNOTATED + XED_PROJECTED)}, not {lang!r}")


def single_labels(records: Sequence[XedLine], policy: str = "single") -> tuple[list[str], np.ndarray]:
    """Texts and 0-based class ids (0 = anger ... 7 = trust) for 8-way classification.

    ``policy="single"``: keep only the lines with exactly one emotion (the
    thesis' single-label task); ``"first"``: every line, labelled with the
    first emotion listed.
    """
    if policy == "single":
        keep = [r for r in records if len(r.labels) == 1]
    elif policy == "first":
        keep = list(records)
    else:
        raise ValueError(f"policy must be 'single' or 'first', got {policy!r}")
    return [r.text for r in keep], np.array([r.labels[0] - 1 for r in keep], dtype=int)


def stratified_split(labels: np.ndarray, n_train: int | None, n_dev: int, n_test: int,
                     seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Disjoint stratified index sets (train, dev, test); ``n_train=None`` takes the rest.

    Raises when the data hold fewer than ``n_dev + n_test (+ n_train)`` items.
    """
    from sklearn.model_selection import train_test_split

    labels = np.asarray(labels)
    n = len(labels)
    need = n_dev + n_test + (n_train or 0)
    if need > n or n_dev + n_test >= n:
        raise ValueError(f"asked for train={n_train}, dev={n_dev}, test={n_test} but only {n} items")
    idx = np.arange(n)
    rest, test = train_test_split(idx, test_size=n_test, stratify=labels, random_state=seed)
    rest, dev = train_test_split(rest, test_size=n_dev, stratify=labels[rest], random_state=seed + 1)
    if n_train is not None and n_train < len(rest):
        rest, _ = train_test_split(rest, train_size=n_train, stratify=labels[rest], random_state=seed + 2)
    return np.sort(rest), np.sort(dev), np.sort(test)


@dataclass
class XedSplits:
    lang: str
    texts: dict[str, list[str]]
    labels: dict[str, np.ndarray]
    file: dict

    def sizes(self) -> dict[str, int]:
        return {k: len(v) for k, v in self.texts.items()}


def xed_splits(lang: str, n_train: int | None, n_dev: int, n_test: int, seed: int = 0,
               policy: str = "single") -> XedSplits:
    """Stratified train / dev / test splits of one XED language (8 classes, ids 0..7).

    When the language has fewer usable lines than asked for, the training
    split shrinks; dev and test are capped at a fifth of the lines each (so
    small projections such as zh still get a training split). ``sizes()``
    says what was used.
    """
    f = read_xed(xed_path(lang))
    texts, y = single_labels(f.records, policy)
    n_dev, n_test = min(n_dev, len(y) // 5), min(n_test, len(y) // 5)
    room = len(y) - n_dev - n_test
    if room <= 0 or n_dev < 1 or n_test < 1:
        raise ValueError(f"XED {lang}: only {len(y)} usable lines")
    tr, dv, te = stratified_split(y, None if n_train is None or n_train >= room else n_train,
                                  n_dev, n_test, seed)
    pick = lambda idx: [texts[i] for i in idx]
    return XedSplits(lang, {"train": pick(tr), "dev": pick(dv), "test": pick(te)},
                     {"train": y[tr], "dev": y[dv], "test": y[te]}, f.summary())


def class_distribution(labels: np.ndarray, names: Sequence[str] = XED_EMOTIONS) -> dict[str, float]:
    """Percentage of each class (ids 0..len(names)-1)."""
    labels = np.asarray(labels)
    return {name: 100.0 * float(np.mean(labels == i)) for i, name in enumerate(names)}


# --------------------------------------------------------------------------- tasks
def xnli_task(train_lang: str, test_lang: str, n_train: int | None = None, n_test: int | None = None,
              seed: int = 0):
    """An XNLI :class:`~xalign.data.tasks.Task`: train on ``train_lang``'s dev rows, test on ``test_lang``'s test.

    ``train_lang == test_lang`` is the per-language ("translate-train"-like)
    setting, ``train_lang="en"`` with another test language is zero-shot
    transfer. Rows are sampled as whole premise groups with ``seed`` (the same
    items in every language).
    """
    from xalign.data.tasks import Split, Task

    tr = xnli_pairs(train_lang, "dev", n_train, seed)
    te = xnli_pairs(test_lang, "test", n_test, seed)
    split = lambda ps: Split(([p.premise for p in ps], [p.hypothesis for p in ps]), nli_label_ids(ps))
    mode = "per-language" if train_lang == test_lang else f"zero-shot from {train_lang}"
    return Task(f"XNLI {train_lang}->{test_lang}", split(tr), split(te), 3,
                meta={"lang": test_lang, "train_lang": train_lang, "setting": mode})


def xed_task(lang: str, n_train: int | None, n_dev: int, n_test: int, seed: int = 0,
             policy: str = "single", train_lang: str | None = None):
    """An XED :class:`~xalign.data.tasks.Task` (8 emotions) with stratified train / dev / test splits.

    ``train_lang``: take train and dev from another language (zero-shot).
    """
    from xalign.data.tasks import Split, Task

    s = xed_splits(lang, n_train, n_dev, n_test, seed, policy)
    src = s if train_lang in (None, lang) else xed_splits(train_lang, n_train, n_dev, n_test, seed, policy)
    sp = lambda d, k: Split((d.texts[k],), d.labels[k])
    mode = "per-language" if src is s else f"zero-shot from {train_lang}"
    return Task(f"XED {src.lang}->{lang}", sp(src, "train"), sp(s, "test"), len(XED_EMOTIONS), dev=sp(src, "dev"),
                meta={"lang": lang, "train_lang": src.lang, "setting": mode, **{f"n_{k}": v for k, v in src.sizes().items()}})
