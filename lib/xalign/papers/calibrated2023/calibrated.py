"""The calibrated-retrieval chapter's evaluation steps, one function per step.

- :func:`validation_retrieval`: WMT21 newstest2021 (en-de, en-ru, en-zh, both directions; the
  paper used WMT20 en -> cs, de, ja, pl, ru, ta, zh), every layer, both
  directions: picks the layer used for Tatoeba and STS, and the checkpoint.
- :func:`tatoeba_retrieval`: the paper's 36 Tatoeba pairs, both directions.
- :func:`sts_scores`: STS 2017 tracks, Spearman x 100.
- :func:`evaluate_checkpoints`: validation retrieval and STS of every
  checkpoint of a fine-tuning run (the paper's checkpoint choice and Fig. 2).

Every function takes an encoder (:class:`~xalign.core.encoders.Encoder` or
:class:`~xalign.core.sentvec.USEEncoder`) and returns a tidy frame; sentences are
encoded once per language and dropped after scoring, so memory does not grow
with the number of languages.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from xalign.core.draws import sample_rows
from xalign.core.hashing import key_digest
from xalign.core.progress import bar as progress_bar
from xalign.core.sentvec import sentence_vectors
from xalign.measures.sentence_retrieval import (
    DIRECTIONS,
    add_mean_direction,
    best_layer,
    layerwise_retrieval,
)
from xalign.measures.sts import layerwise_sts, pair_cosines

VALIDATION_PAIRS = (("en", "de"), ("en", "ru"), ("en", "zh"))
STS_MONOLINGUAL = ("ar-ar", "en-en", "es-es")

#: Hub ids of the paper's models and the labels its tables use.
PAPER_MODELS = {
    "bert-base-multilingual-cased": "mBERT",
    "xlm-roberta-base": "XLM-R_Base",
    "xlm-roberta-large": "XLM-R",
    "sentence-transformers/LaBSE": "LaBSE",
}


def paper_label(model: str) -> str | None:
    """The paper's table label of a hub model id, or None for a model the paper did not run."""
    return PAPER_MODELS.get(model)


def _layer_labels(encoder, layers) -> tuple[list[int] | None, list[int]]:
    """(layers argument for the encoder, labels of the returned layer slices)."""
    if getattr(encoder, "n_layers", 1) == 1:
        return None, [0]
    if layers is None:
        return None, list(range(encoder.n_layers))
    labels = [int(x) % encoder.n_layers for x in np.atleast_1d(layers)]
    return labels, labels


def paired_retrieval(encoder, pairs: Sequence[tuple[str, str]], layers=None, method: str = "cosine",
                     directions=DIRECTIONS, keep_hits: bool = False) -> pd.DataFrame:
    """Layer-wise retrieval accuracy (%) of (xx, en) sentence pairs; tidy (layer, direction, value)
    (and ``hits``, the per-query booleans, with ``keep_hits``)."""
    arg, labels = _layer_labels(encoder, layers)
    X = sentence_vectors(encoder, [p[0] for p in pairs], layers=arg)
    Y = sentence_vectors(encoder, [p[1] for p in pairs], layers=arg)
    return layerwise_retrieval(X, Y, layers=labels, method=method, directions=directions, keep_hits=keep_hits)


def tatoeba_retrieval(encoder, langs: Sequence[str], n: int | None = None, seed: int = 0, layers=None,
                      method: str = "cosine", loader=None, keep_hits: bool = False) -> pd.DataFrame:
    """Tatoeba accuracy (%) per language, layer and direction (``xx->en``, ``en->xx``, ``mean``).

    ``n`` caps the pairs per language (a seeded sample; all pairs if None). ``keep_hits`` adds
    the per-sentence booleans of each direction (``hits``; none on the ``mean`` rows).
    """
    if loader is None:
        from xalign.data.sentdata import tatoeba_pairs as loader
    frames = []
    for lang in progress_bar(list(langs), desc=f"Tatoeba {getattr(encoder, 'name', '')}", unit="lang"):
        pairs = loader(lang)
        pairs = [pairs[i] for i in sample_rows(len(pairs), n, seed)]
        df = paired_retrieval(encoder, pairs, layers, method, keep_hits=keep_hits)
        df.insert(0, "lang", lang)
        df["n_pairs"] = len(pairs)
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    mean = add_mean_direction(out.drop(columns=["n_pairs", *(["hits"] if keep_hits else [])]), ["lang", "layer"])
    if keep_hits:
        mean = mean.merge(out[["lang", "layer", "direction", "hits"]], on=["lang", "layer", "direction"], how="left")
    return mean.merge(out[["lang", "n_pairs"]].drop_duplicates(), on="lang")


def validation_retrieval(encoder, pairs=VALIDATION_PAIRS, n: int | None = None, seed: int = 0, layers=None,
                         method: str = "cosine", loader=None) -> pd.DataFrame:
    """WMT21 validation accuracy (%) per language pair, layer and direction (with ``mean``).

    ``loader(src, tgt)`` -> (src, tgt) sentence pairs; default: newstest2021, both translation
    directions of the language pair (:func:`xalign.data.corpora.wmt_newstest`).
    """
    if loader is None:
        from xalign.data.corpora import wmt_newstest

        def loader(src, tgt):
            return wmt_newstest("wmt21", f"{src}-{tgt}")
    frames = []
    for src, tgt in pairs:
        rows = loader(src, tgt)
        rows = [rows[i] for i in sample_rows(len(rows), n, seed)]
        # orient as (xx, en) so that directions read like Tatoeba's
        rows = [(b, a) for a, b in rows] if src == "en" else rows
        df = paired_retrieval(encoder, rows, layers, method)
        df.insert(0, "pair", f"{src}-{tgt}")
        frames.append(df)
    return add_mean_direction(pd.concat(frames, ignore_index=True), ["pair", "layer"])


def sts_scores(encoder, tracks: Sequence[str] = STS_MONOLINGUAL, layers=None, n: int | None = None,
               loader=None, keep_items: bool = False) -> pd.DataFrame:
    """STS 2017 Spearman x 100 per track and layer (first ``n`` pairs of each track); tidy (track, layer, value).

    ``keep_items`` adds ``items``: an (n, 2) array of (cosine, gold score) per pair, the input of
    the Spearman correlation (for confidence intervals).
    """
    if loader is None:
        from xalign.data.sentdata import sts2017_pairs as loader
    arg, labels = _layer_labels(encoder, layers)
    frames = []
    for track in tracks:
        rows = loader(track)[:n]
        U = sentence_vectors(encoder, [r[0] for r in rows], layers=arg)
        V = sentence_vectors(encoder, [r[1] for r in rows], layers=arg)
        gold = np.array([r[2] for r in rows], float)
        df = layerwise_sts(U, V, gold, layers=labels)
        if keep_items:
            df["items"] = [np.c_[pair_cosines(U[:, i], V[:, i]), gold] for i in range(U.shape[1])]
        df.insert(0, "track", track)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def validation_best_layer(val: pd.DataFrame) -> int:
    """The layer with the best mean validation accuracy (over pairs, both directions)."""
    return best_layer(val[val["direction"] == "mean"])


def at_layer(frame: pd.DataFrame, layer: int) -> pd.DataFrame:
    """The rows of one layer (the ``layer`` column kept)."""
    out = frame[frame["layer"] == layer]
    if out.empty:
        raise KeyError(f"no scores for layer {layer} (layers: {sorted(frame['layer'].unique())})")
    return out.reset_index(drop=True)


def with_average(frame: pd.DataFrame, key: str, label: str = "avg", by: Sequence[str] = ()) -> pd.DataFrame:
    """Append the mean of ``value`` over ``key`` (e.g. languages) as a row labelled ``label``, per ``by``."""
    by = list(by)
    if by:
        avg = frame.groupby(by, sort=False, as_index=False)["value"].mean()
    else:
        avg = pd.DataFrame({"value": [frame["value"].mean()]})
    avg[key] = label
    return pd.concat([frame, avg[[c for c in frame.columns if c in avg.columns]]], ignore_index=True)


def checkpoint_identity(path) -> dict:
    """What identifies a checkpoint directory's weights without loading them: its path and the names,
    sizes and modification times of its files (a rewritten checkpoint gets a new identity)."""
    p = Path(path)
    files = sorted((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in p.iterdir() if f.is_file())
    return {"path": str(p.resolve()), "files": files}


def evaluate_checkpoints(checkpoints: Sequence[tuple[float, Path]], prefix: str = "", val_n: int | None = None,
                         seed: int = 0, tracks: Sequence[str] = STS_MONOLINGUAL, sts_n: int | None = None,
                         tatoeba_langs: Sequence[str] = (), tatoeba_n: int | None = None,
                         method: str = "cosine", progress: bool = False, *,
                         val_pairs: Sequence[tuple[str, str]] = VALIDATION_PAIRS, layer: int | None = None,
                         loader=None, store=None) -> pd.DataFrame:
    """Validation retrieval, STS and optionally Tatoeba of each checkpoint.

    ``val_pairs``: the validation language pairs (as for :func:`validation_retrieval`).
    ``layer``: the layer every checkpoint is read at, chosen *before* fine-tuning (the
    paper's protocol: the layer is not re-chosen after calibration); ``None`` picks each
    checkpoint's best validation layer instead. ``loader`` is passed to
    :func:`validation_retrieval` (tests). Returns one row per checkpoint: ``fraction`` of
    training done, ``path``, ``layer``, ``validation`` (% at that layer, mean of pairs and
    directions), ``n_queries`` (the validation queries behind it: pairs x directions), ``sts`` (mean Spearman x 100 over ``tracks`` at that layer) and, with
    ``tatoeba_langs``, ``tatoeba`` (mean accuracy %, both directions).

    The row of a checkpoint directory is memoised (:func:`xalign.core.memo.cached`, in ``store``)
    under its :func:`checkpoint_identity`, the parameters, a digest of the data and the code, so a
    rerun neither loads nor encodes with it.
    """
    from xalign.core import memo
    from xalign.core.devices import default_device
    from xalign.core.loading import load_encoder
    from xalign.data.sentdata import sts2017_pairs, tatoeba_pairs

    val_pairs = [tuple(p) for p in val_pairs]
    if not val_pairs:
        raise ValueError("val_pairs is empty: no validation pairs to choose a checkpoint on")
    if loader is None:
        from xalign.data.corpora import wmt_newstest

        def loader(src, tgt):
            return wmt_newstest("wmt21", f"{src}-{tgt}")
    val_data = {p: loader(*p) for p in val_pairs}  # read once for all checkpoints
    n_queries = len(DIRECTIONS) * sum(len(sample_rows(len(rows), val_n, seed)) for rows in val_data.values())
    tat_data = {lang: tatoeba_pairs(lang) for lang in tatoeba_langs}
    key = {"prefix": prefix, "val_pairs": val_pairs, "val_n": val_n, "seed": seed, "tracks": list(tracks),
           "sts_n": sts_n, "tatoeba_langs": list(tatoeba_langs), "tatoeba_n": tatoeba_n, "method": method,
           "layer": layer, "device": default_device(),
           "data": key_digest([list(val_data.values()), list(tat_data.values()),
                                 [sts2017_pairs(t)[:sts_n] for t in tracks]])}

    def evaluate(fraction, path) -> dict:
        enc = load_encoder(str(path), prefix=prefix, progress=progress)
        val = validation_retrieval(enc, val_pairs, n=val_n, seed=seed, method=method,
                                   layers=None if layer is None else [layer], loader=lambda s, t: val_data[(s, t)])
        at = validation_best_layer(val) if layer is None else int(layer) % max(getattr(enc, "n_layers", 1), 1)
        row = {"fraction": float(fraction), "path": str(path), "layer": at,
               "validation": float(at_layer(val[val.direction == "mean"], at)["value"].mean()),
               "n_queries": n_queries,
               "sts": float(sts_scores(enc, tracks, layers=[at], n=sts_n)["value"].mean())}
        if tatoeba_langs:
            tat = tatoeba_retrieval(enc, tatoeba_langs, n=tatoeba_n, seed=seed, layers=[at], method=method,
                                    loader=tat_data.__getitem__)
            row["tatoeba"] = float(tat[tat.direction == "mean"]["value"].mean())
        return row

    rows = []
    for fraction, path in checkpoints:
        if not Path(path).is_dir():  # nothing on disk to identify it by: not memoised
            rows.append(evaluate(fraction, path))
            continue
        row = memo.cached("calibrated2023.checkpoint_scores",
                          {**key, "checkpoint": checkpoint_identity(path), "fraction": float(fraction)},
                          lambda f=fraction, p=path: evaluate(f, p),
                          store=store)  # the key holds evaluate's code and what it reaches (load_encoder, the encoders)
        rows.append(row)
    return pd.DataFrame(rows)


def choose_checkpoint(evaluated: pd.DataFrame) -> pd.Series:
    """The checkpoint with the highest validation accuracy (ties: the earliest)."""
    if evaluated.empty:
        raise ValueError("no checkpoints evaluated")
    return evaluated.loc[evaluated["validation"].idxmax()]


def relative_to_first(evaluated: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Fig. 2's y axis: each score minus its value at the smallest fraction; tidy (fraction, metric, value)."""
    ev = evaluated.sort_values("fraction")
    out = []
    for c in columns:
        base = ev[c].iloc[0]
        out += [{"fraction": f, "metric": c, "value": v - base} for f, v in zip(ev["fraction"], ev[c])]
    return pd.DataFrame(out)


# ------------------------------------------------------------------ comparison with the paper
def counterparts(models: Sequence[str], reference: str = "LaBSE") -> dict[str, str]:
    """Which paper model each of our models is compared with.

    The paper's own models map to themselves; if the paper's ``reference``
    model is not among them, the first model the paper did not run stands in
    for it (the offline e5-small, like LaBSE, is a sentence-embedding model).
    """
    out = {m: paper_label(m) for m in models if paper_label(m)}
    if reference not in out.values():
        for m in models:
            if m not in out:
                out[m] = reference
                break
    return out


def compare_counterparts(run, table: str, ours: pd.DataFrame, keys: Sequence[str], mapping: dict[str, str],
                         title: str = "", note: str = "", paper: pd.DataFrame | None = None) -> pd.DataFrame:
    """``run.compare`` for frames with a ``model`` column of our model names.

    Our models are renamed to their paper counterparts (``mapping``; others
    dropped), the paper's rows are limited to those counterparts, and the
    column ``ours_model`` keeps the name of the model that produced our
    numbers. A stand-in model (not the paper's own) never counts as
    "reproduced": such tables are marked "partly".
    """
    from xalign.data.paper_tables import paper_table

    paper = paper if paper is not None else paper_table(run.paper, table)
    o = ours[ours["model"].isin(list(mapping))].copy()
    o["ours_model"] = o["model"]
    o["model"] = o["model"].map(mapping)
    p = paper[paper["model"].isin(set(mapping.values()))]
    merged = run.compare(table, o, ["model", *keys], title=title, paper=p, note=note)
    stand_in = any(paper_label(m) != label for m, label in mapping.items())
    if stand_in and run.tables[table].status == "reproduced":
        run.tables[table].status = "partly"
    return merged


def side_by_side(merged: pd.DataFrame, index: Sequence[str], columns: Sequence[str],
                 values: Sequence[str] = ("paper", "ours", "diff"), digits: int = 1) -> pd.DataFrame:
    """A compared long frame pivoted for reading: one row per ``index`` (in the frame's order),
    one (column key, paper/ours/diff) column group per value of ``columns``."""
    index, columns = list(index), list(columns)
    wide = merged.pivot_table(index=index, columns=columns, values=list(values), aggfunc="first", dropna=False)
    rows = list(dict.fromkeys(map(tuple, merged[index].itertuples(index=False, name=None))))
    keys = list(dict.fromkeys(map(tuple, merged[columns].itertuples(index=False, name=None))))
    wide = wide.reindex(index=pd.MultiIndex.from_tuples(rows, names=index) if len(index) > 1
                        else pd.Index([r[0] for r in rows], name=index[0]))
    cols = [(v, *k) for k in keys for v in values]
    wide = wide.reindex(columns=pd.MultiIndex.from_tuples(cols))
    wide.columns = pd.MultiIndex.from_tuples([(*c[1:], c[0]) for c in cols],
                                             names=[*columns, ""])
    return wide.round(digits)


def finetuning_changes(paper: pd.DataFrame, ours: pd.DataFrame, before: str = "none",
                       after: str = "sentence_embedding", tasks: Sequence[str] = ("CLSR", "STS")) -> pd.DataFrame:
    """Change (after - before) per model and task, the paper's next to ours.

    Both frames are long Table 1 frames (``model``, ``setup``, ``task``, ``value``). Returns one row per
    (model, source) with a ``change in <task>`` column per task; models without a before/after pair are
    dropped.
    """
    def changes(frame: pd.DataFrame, source: str) -> pd.DataFrame:
        wide = frame[frame.task.isin(tasks)].pivot_table(index=["model", "task"], columns="setup", values="value")
        if before not in wide or after not in wide:
            return pd.DataFrame()
        return (wide[after] - wide[before]).unstack("task").assign(source=source)

    out = pd.concat([changes(paper, "paper"), changes(ours, "ours")])
    out = out.dropna(subset=[t for t in tasks if t in out], how="all")
    out = out.rename(columns={t: f"change in {t}" for t in tasks}).rename_axis(columns=None)
    return out.reset_index()
