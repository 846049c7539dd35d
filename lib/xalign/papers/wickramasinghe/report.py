"""Reshape BLI results (from :func:`xalign.measures.bli.evaluate_directions`) into the paper's tables.

Labels follow Wickramasinghe and de Silva: methods ``Procrustes``, ``RCSLS``,
``VecMap`` (maps between static vectors), ``multilingual model`` (a
multilingual encoder's own word vectors: LaBSE in the paper, whatever model
this run used here) and ``multilingual model + <map>`` (a map learned on top
of the multilingual model's vectors: the "combined" rows); retrieval ``NN`` /
``CSLS``; pairs ``en-es``; directions ``En-X`` / ``X-En``. Every table is
long format with a ``value`` column (percent), ready for
:meth:`xalign.book.results.ChapterRun.compare`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.measures import interval_text

MAP_NAMES = {"procrustes": "Procrustes", "rcsls": "RCSLS", "vecmap": "VecMap"}
MULTILINGUAL = "multilingual model"


def method_label(vectors: str, method: str) -> str:
    """Paper-style method name for vectors ``"multilingual"`` or ``"static"`` and a map (or ``"none"``)."""
    if vectors == "multilingual":
        return MULTILINGUAL if method == "none" else f"{MULTILINGUAL} + {MAP_NAMES[method]}"
    if vectors == "static":
        return MAP_NAMES.get(method, "static (unmapped)")
    raise ValueError(f"vectors must be 'multilingual' or 'static', got {vectors!r}")


def label(results: pd.DataFrame, vectors: str, sinhala_dictionary: str = "wiki") -> pd.DataFrame:
    """Add paper-style ``method``, ``retrieval``, ``pair`` and ``dictionary`` columns to raw results.

    ``dictionary`` is ``"muse"``, or ``sinhala_dictionary`` (wiki / cc) for Sinhala pairs.
    """
    out = results.copy()
    out["method"] = [method_label(vectors, m) for m in out["method"]]
    out["retrieval"] = out["retrieval"].str.upper()
    out["pair"] = out["src"] + "-" + out["tgt"]
    is_si = (out["src"] == "si") | (out["tgt"] == "si")
    out["dictionary"] = np.where(is_si, sinhala_dictionary, "muse")
    return out


def vocabulary_summary(vocabularies: dict[str, list[str]], prune_rule: str = "script",
                       prune_langs: Sequence[str] | None = None) -> pd.DataFrame:
    """Per language: candidate words, where they come from, and the share each pruning rule keeps.

    ``kept, authors' rule (%)``: :func:`xalign.data.scripts.authors_ascii_keep`;
    ``kept, our rule (%)``: Unicode scripts. The examples are words the rule
    in use (``prune_rule``) drops. Only the languages of ``prune_langs`` (all
    when None) are pruned, so only they get these columns.
    """
    from xalign.data.scripts import script_mask

    rows = []
    for lang, words in vocabularies.items():
        if prune_langs is not None and lang not in prune_langs:
            rows.append({"lang": lang, "words": len(words), "source": "wordfreq top-N"})
            continue
        ours, authors = script_mask(words, lang, rule="script"), script_mask(words, lang, rule="ascii")
        used = authors if prune_rule == "ascii" else ours
        rows.append({"lang": lang, "words": len(words),
                     "source": "fastText wiki.si vocabulary (the paper's)" if lang == "si" else "wordfreq top-N",
                     "kept, authors' rule (%)": round(100.0 * float(authors.mean()), 2),
                     "kept, our rule (%)": round(100.0 * float(ours.mean()), 2),
                     f"examples dropped ({prune_rule})": ", ".join([w for w, m in zip(words, used) if not m][:8])})
    return pd.DataFrame(rows)


#: columns every BLI table carries next to ``value``
EXTRA = ["lo", "hi", "coverage", "n_queries", "n_identical", "precision_no_identical", "lo_no_identical",
         "hi_no_identical"]


def with_interval(frame: pd.DataFrame, value: str = "ours", lo: str = "lo", hi: str = "hi",
                  digits: int = 1) -> pd.Series:
    """``"61.7 [58.9, 64.4]"`` strings: a value with its 95% interval (empty where there is no value)."""
    return pd.Series([interval_text.with_interval(v, a, b, digits) or "" for v, a, b in
                      zip(frame[value], frame[lo], frame[hi])], index=frame.index)


def _pick(df: pd.DataFrame, **eq) -> pd.DataFrame:
    mask = np.ones(len(df), bool)
    for col, val in eq.items():
        mask &= (df[col].isin(val) if isinstance(val, (list, tuple, set)) else df[col] == val).to_numpy()
    return df[mask]


def table1(results: pd.DataFrame, model: str, languages: Sequence[str], pruned_langs: Sequence[str] = ()) -> pd.DataFrame:
    """Table 1: P@1/5/10 of one multilingual model, En->X and X->En, NN and CSLS.

    ``pruned_langs``: languages whose rows come from the pruned vocabulary
    where the results have them (the paper prunes Chinese). Columns: model,
    lang, direction, retrieval, k, value, :data:`EXTRA` (interval, coverage,
    identical strings), pruned.
    """
    df = _pick(results, method=MULTILINGUAL, match="exact")
    rows = []
    for lang in languages:
        for src, tgt, direction in (("en", lang, "En-X"), (lang, "en", "X-En")):
            sel = _pick(df, src=src, tgt=tgt)
            want = lang in pruned_langs and bool(sel["pruned"].any())
            sel = sel[sel["pruned"] == want]
            for r in sel.itertuples():
                rows.append({"model": model, "lang": lang, "direction": direction, "retrieval": r.retrieval,
                             "k": r.k, "value": r.precision, **{c: getattr(r, c) for c in EXTRA},
                             "pruned": want})
    return pd.DataFrame(rows)


def table2(results: pd.DataFrame) -> pd.DataFrame:
    """Table 2: P@1 for every method, retrieval and pair, unpruned vocabularies."""
    df = _pick(results, match="exact", k=1, pruned=False)
    return (df[["method", "retrieval", "pair", "precision"] + EXTRA]
            .rename(columns={"precision": "value"}).reset_index(drop=True))


def table3(results: pd.DataFrame, pairs: Sequence[str]) -> pd.DataFrame:
    """Table 3: P@1 with and without vocabulary pruning (``pruned``: "no" / "yes")."""
    df = _pick(results, match="exact", k=1, pair=list(pairs))
    out = df[["method", "retrieval", "pair", "pruned", "precision"] + EXTRA].rename(columns={"precision": "value"})
    out["pruned"] = out["pruned"].map({False: "no", True: "yes"})
    return out.reset_index(drop=True)


def rule_variant(results: pd.DataFrame, other: pd.DataFrame, rule: str, other_rule: str) -> pd.DataFrame:
    """P@1 of the multilingual model (no map) on the pruned pairs under both pruning rules.

    Args:
        results: labelled results of the run (pruned with ``rule``); other: labelled results of
            the same directions pruned with ``other_rule`` (``"ascii"``: the authors', ``"script"``: ours).

    Returns:
        One row per pair and retrieval: ``unpruned``, ``pruned, <rule label>`` for each rule
        (P@1, %), and ``ours - authors'`` (points); empty when no pair was pruned.
    """
    names = {"ascii": "pruned, authors' rule", "script": "pruned, our rule"}
    keys = ["pair", "retrieval"]

    def p1(df, pruned):
        d = _pick(df, method=MULTILINGUAL, match="exact", k=1, pruned=pruned)
        return d[keys + ["precision"]]

    pruned_pairs = set(_pick(other, pruned=True)["pair"])
    base = p1(results, False)
    out = base[base["pair"].isin(pruned_pairs)].rename(columns={"precision": "unpruned"})
    for df, r in ((results, rule), (other, other_rule)):
        out = out.merge(p1(df, True).rename(columns={"precision": names[r]}), on=keys, how="left")
    if len(out):
        out["ours - authors' (points)"] = out[names["script"]] - out[names["ascii"]]
    return out.reset_index(drop=True)


def relative_improvement(df: pd.DataFrame, column: str, before, after, keys: Sequence[str]) -> pd.DataFrame:
    """``100 * (after - before) / before`` of ``value`` between two settings of ``column``, per ``keys``."""
    wide = df.pivot_table(index=list(keys), columns=column, values="value", aggfunc="first")
    if before not in wide or after not in wide:
        return pd.DataFrame(columns=list(keys) + ["value"])
    gain = 100.0 * (wide[after] - wide[before]) / wide[before].replace(0, np.nan)
    return gain.rename("value").reset_index()


def table5(t3: pd.DataFrame) -> pd.DataFrame:
    """Table 5: relative P@1 improvement (%) of the multilingual model from pruning, per pair and retrieval."""
    return relative_improvement(_pick(t3, method=MULTILINGUAL), "pruned", "no", "yes", ["pair", "retrieval"])


def table4(results: pd.DataFrame, pruned: bool = True) -> pd.DataFrame:
    """Table 4: En-Si and Si-En P@1/5/10, exact and stem-based ("soft") matching, per dictionary.

    For each direction and dictionary the rows with ``pruned`` are used when
    there are any (the paper's multilingual numbers are with the pruned
    Sinhala vocabulary), the unpruned ones otherwise.
    """
    df = results[results["src"].isin(["en", "si"]) & results["tgt"].isin(["en", "si"])]
    parts = []
    for _, g in df.groupby(["src", "tgt", "dictionary", "method"], sort=False):
        parts.append(g[g["pruned"] == pruned] if (g["pruned"] == pruned).any() else g[g["pruned"] != pruned])
    if not parts:
        return pd.DataFrame(columns=["method", "retrieval", "soft", "dictionary", "direction", "k", "value"])
    df = pd.concat(parts)
    out = pd.DataFrame({
        "method": df["method"], "retrieval": df["retrieval"],
        "soft": df["match"].map({"exact": "no", "stem": "yes"}),
        "dictionary": df["dictionary"],
        "direction": df["src"].str.capitalize() + "-" + df["tgt"].str.capitalize(),
        "k": df["k"], "value": df["precision"], **{c: df[c] for c in EXTRA}, "pruned": df["pruned"]})
    return out.reset_index(drop=True)


def table6(t4: pd.DataFrame) -> pd.DataFrame:
    """Table 6: relative En->Si improvement (%) of stem-based over exact matching."""
    return relative_improvement(_pick(t4, direction="En-Si"), "soft", "no", "yes",
                                ["method", "retrieval", "dictionary", "k"])


def sinhala_list_inflation(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """P@1 of the multilingual model on En<->Si with the old candidate list (the dictionaries' Sinhala words,
    test split included) and with the paper's (fastText's Sinhala vocabulary); ``inflation`` = old - new.

    ``old`` / ``new``: labelled results (exact match, k = 1 rows are used).
    """
    keys = ["src", "tgt", "retrieval", "pruned"]
    cols = ["precision", "lo", "hi", "coverage", "n_queries"]

    def pick(df):
        d = _pick(df, method=MULTILINGUAL, match="exact", k=1)
        return d[(d["src"] == "si") | (d["tgt"] == "si")][keys + cols]

    both = pick(old).merge(pick(new), on=keys, suffixes=(" (dictionary words)", " (fastText)"))
    both["inflation (P@1 points)"] = both["precision (dictionary words)"] - both["precision (fastText)"]
    both.insert(0, "direction", both.pop("src").str.capitalize() + "-" + both.pop("tgt").str.capitalize())
    return both.reset_index(drop=True)


def identical_strings(results: pd.DataFrame) -> pd.DataFrame:
    """Per pair and retrieval (multilingual model, unpruned, P@1): how many covered queries have the source
    string itself among their gold translations, and P@1 with those queries removed."""
    d = _pick(results, method=MULTILINGUAL, match="exact", k=1, pruned=False)
    out = d[["pair", "retrieval", "precision", "lo", "hi", "coverage", "n_queries", "n_identical",
             "precision_no_identical", "lo_no_identical", "hi_no_identical"]].rename(columns={"precision": "P@1"})
    out.insert(out.columns.get_loc("n_identical") + 1, "identical (%)",
               100.0 * out["n_identical"] / out["n_queries"].replace(0, np.nan))
    return out.reset_index(drop=True)


def known_answers(vectors: dict, languages: Sequence[str], n: int = 500) -> pd.DataFrame:
    """Self-translation of each language's space with the identity dictionary: NN P@1 must be 100."""
    from xalign.measures.bli import self_translation_check

    rows = []
    for lang in languages:
        r = self_translation_check(vectors[lang], n=n).iloc[0]
        rows.append({"check": "self-translation NN P@1", "lang": lang, "expected": 100.0,
                     "value": float(r.precision), "n_queries": int(r.n_queries)})
    return pd.DataFrame(rows)


def page_view(cmp: pd.DataFrame, keys: Sequence[str], model: str, unit: str = "%") -> tuple[pd.DataFrame, list[str]]:
    """A compared table labelled for the page: the keys, the paper, ours with its 95% bootstrap interval,
    the difference, and coverage where the table has it.

    Args:
        cmp: a frame from ``run.compare`` (paper, ours, diff; ``lo``/``hi``/``coverage`` where present).
        keys: the key columns, in the order shown.
        model: the model our numbers come from (named in the header; ``model`` key columns name the
            paper's row each line is set beside).
        unit: the unit of the values, for the headers.

    Returns:
        (the frame, the short set of columns shown before the dropdown).
    """
    out = cmp.copy()
    ours = f"ours: {model} ({unit})"
    cols = {"paper": f"paper ({unit})", "ours": ours, "diff": "ours - paper", "model": "paper's model",
            "coverage": "coverage (%)", "n_queries": "queries (count)"}
    if {"lo", "hi"} <= set(out.columns):
        out["ours 95% CI"] = [interval_text.interval(a, b) or "–" for a, b in zip(out["lo"], out["hi"])]
    out = out.rename(columns=cols)
    short = [cols.get(k, k) for k in keys] + [f"paper ({unit})", ours]
    short += [c for c in ("ours 95% CI", "ours - paper", "coverage (%)") if c in out.columns]
    return out, short
