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

from xalign.core import markup
from xalign.data.scripts import RULE_NAMES
from xalign.measures.verdicts import DOWN, UP, change_verb, separated

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
    def fmt(v, a, b):
        if pd.isna(v):
            return ""
        return f"{v:.{digits}f}" + ("" if pd.isna(a) else f" [{a:.{digits}f}, {b:.{digits}f}]")
    return pd.Series([fmt(v, a, b) for v, a, b in zip(frame[value], frame[lo], frame[hi])], index=frame.index)


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


def sinhala_lists_sentence(matched: pd.DataFrame) -> str:
    """One bullet on the old Sinhala list against the paper's, both cut to one size, on shared queries.

    Args:
        matched: the ``sinhala_lists_matched`` frame (:func:`sinhala_list_inflation`'s columns and
            ``list size``).

    Returns:
        Markdown: per direction, retrieval and pruning old vs new P@1 (%), and a verdict per pruning
        state that calls a difference only where the two 95% bootstrap intervals do not overlap;
        "" when empty.
    """
    d = matched.dropna(subset=["precision (dictionary words)", "precision (fastText)"]) if len(matched) else matched
    if not len(d):
        return ""
    old, new = "(dictionary words)", "(fastText)"
    verdicts = ["higher" if r[f"lo {old}"] > r[f"hi {new}"] else "lower" if r[f"hi {old}"] < r[f"lo {new}"]
                else "level" for _, r in d.iterrows()]
    per = ", ".join(f"{r['direction']} {r['retrieval']}{' pruned' if r['pruned'] else ''} "
                    f"{r[f'precision {old}']:.1f} vs {r[f'precision {new}']:.1f} ({int(r[f'n_queries {new}'])} queries)"
                    for _, r in d.iterrows())
    def summary(vs: list[str]) -> str:
        counts = {v: vs.count(v) for v in ("higher", "lower", "level")}
        every = "the one cell" if len(vs) == 1 else f"all {len(vs)} cells"
        if counts["level"] == len(vs):
            return f"the two lists are level within their bootstrap intervals in {every}"
        if counts["higher"] == len(vs) or counts["lower"] == len(vs):
            return f"the old list scores {vs[0]} in {every}, beyond the bootstrap intervals"
        return ", ".join(f"{v} in {n}" for v, n in (("the old list is higher", counts["higher"]),
                                                    ("lower", counts["lower"]), ("level", counts["level"])) if n) \
            + f" of {len(vs)} cells"

    by_state = [(state, [v for v, p in zip(verdicts, d["pruned"]) if bool(p) == state]) for state in (False, True)]
    verdict = "; ".join(f"{'pruned' if state else 'unpruned'}, {summary(vs)}" for state, vs in by_state if vs)
    return (f"* **The old Sinhala candidate list** (the dictionaries' words, test split included) against the "
            f"paper's (fastText's), both cut to {int(d['list size'].iloc[0]):,} words and scored on the queries "
            f"both cover, P@1 old vs new: {per}; {verdict}.")


def findings(t2: pd.DataFrame, t3: pd.DataFrame, t6: pd.DataFrame, model: str,
             inflation: pd.DataFrame | None = None, identical: pd.DataFrame | None = None,
             sinhala_lists: pd.DataFrame | None = None) -> str:
    """A short Markdown summary of this run's evidence on the paper's three claims (and on two set-ups
    that may flatter the model: the old Sinhala candidate list, compared on equal terms through
    ``sinhala_lists`` (:func:`sinhala_lists_sentence`), and identical strings). The model's name is page
    text (:func:`xalign.core.markup.text`)."""
    model = markup.text(model)
    lines = []
    gains = table5(t3).dropna() if len(_pick(t3, method=MULTILINGUAL)) else pd.DataFrame()
    if len(gains):
        combined = relative_improvement(t3[t3["method"].str.startswith(f"{MULTILINGUAL} +")], "pruned", "no", "yes",
                                        ["method", "pair", "retrieval"]).dropna()
        per_pair = ", ".join(f"{r.pair} {r.retrieval} {r.value:+.0f}%" for r in gains.itertuples())
        verdict = pruning_verdict(t3)
        lines.append(f"* **Pruning** changed {model}'s own P@1 by {per_pair}"
                     + (f"; the maps learned on its vectors changed by {combined['value'].mean():+.0f}% on average"
                        if len(combined) else "") + (f". {verdict}" if verdict else "") + ".")
    soft = _pick(t6, method=MULTILINGUAL).dropna()
    if len(soft):
        lines.append(f"* **Stem-based matching** {change_range(soft['value'], 'raised', 'lowered')} {model}'s En->Si "
                     f"precision (relative; over P@1/5/10, NN/CSLS, wiki/cc dictionaries).")
    per_map = map_wins(t2)
    if len(per_map):
        parts = "; ".join(f"{r.map} in {r.wins} of {r.cells} cells (mean {r.gain:+.1f} points)"
                          for r in per_map.itertuples())
        lines.append(f"* **Combined rows** (each map learned on {model}'s vectors, against its raw vectors; pair x "
                     f"retrieval cells of Table 2, P@1): {parts}.")
    if inflation is not None and len(inflation.dropna(subset=["inflation (P@1 points)"])):
        inf = inflation.dropna(subset=["inflation (P@1 points)"])
        per = ", ".join(f"{r['direction']} {r['retrieval']}{' pruned' if r['pruned'] else ''} "
                        f"{r['precision (dictionary words)']:.1f} vs {r['precision (fastText)']:.1f}"
                        for _, r in inf.iterrows())
        lines.append(f"* **The old Sinhala candidate list** (the dictionaries' words, test split included) gave P@1 "
                     f"{inf['inflation (P@1 points)'].mean():+.1f} points on average over fastText's Sinhala "
                     f"vocabulary (old vs new: {per}).")
    if sinhala_lists is not None and sinhala_lists_sentence(sinhala_lists):
        lines.append(sinhala_lists_sentence(sinhala_lists))
    if identical is not None and len(identical.dropna(subset=["P@1"])):
        d = identical.dropna(subset=["P@1", "precision_no_identical"])
        if len(d):
            top = d.sort_values("identical (%)", ascending=False).iloc[0]
            lines.append(f"* **Identical strings**: up to {top['identical (%)']:.0f}% of covered queries "
                         f"({top['pair']}, {int(top['n_identical'])} of {int(top['n_queries'])}) have the source "
                         f"string itself as a gold translation; without them {model}'s P@1 there is "
                         f"{top['precision_no_identical']:.1f} instead of {top['P@1']:.1f} ({top['retrieval']}).")
    return "\n".join(lines)


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


def change_range(values, up: str = "raised", down: str = "lowered", unit: str = "%") -> str:
    """"raised it by 5% to 40%" style wording chosen from the numbers (never "by 0% to 0%").

    Args:
        values: relative or absolute changes (positive = up).
        up, down: verbs for a rise and a fall.
        unit: appended to each number.

    Returns:
        "did not change" when every change rounds to 0; one verb with a range when all changes
        share a sign; "changed ... (from -3% to +12%)" when they do not.
    """
    v = [float(x) for x in values]
    rounded = [round(x) for x in v]
    if not v or all(r == 0 for r in rounded):
        return "did not change"
    lo, hi = min(v), max(v)
    if lo >= 0 or hi <= 0:
        verb = up if hi > 0 else down
        a, b = sorted((abs(lo), abs(hi)))
        return f"{verb} by {b:.0f}{unit}" if round(a) == round(b) else f"{verb} by {a:.0f}{unit} to {b:.0f}{unit}"
    return f"changed by {lo:+.0f}{unit} to {hi:+.0f}{unit}"


def pruning_verdict(t3: pd.DataFrame) -> str:
    """Whether pruning's effect on the multilingual model's P@1 holds beyond the 95% bootstrap intervals.

    Compares, per pair and retrieval, the pruned interval with the unpruned one: a rise or a fall
    counts only when the two intervals do not overlap.
    """
    d = _pick(t3, method=MULTILINGUAL)
    if not len(d) or "lo" not in d:
        return ""
    wide = d.pivot_table(index=["pair", "retrieval"], columns="pruned", values=["value", "lo", "hi"], aggfunc="first")
    if ("value", "no") not in wide or ("value", "yes") not in wide:
        return ""
    up = (wide[("lo", "yes")] > wide[("hi", "no")])
    down = (wide[("hi", "yes")] < wide[("lo", "no")])
    n, n_up, n_down = len(wide), int(up.sum()), int(down.sum())
    if n_up == n:
        return f"The rise holds beyond the 95% bootstrap intervals in all {n} cells"
    if n_up + n_down == 0:
        return f"In none of the {n} cells does the change leave the 95% bootstrap intervals (unstable)"
    return (f"Beyond the 95% bootstrap intervals it rises in {n_up} and falls in {n_down} of {n} cells; "
            "the others are unstable")


def map_wins(t2: pd.DataFrame) -> pd.DataFrame:
    """Per map learned on the multilingual model's vectors: cells of Table 2 (pair x retrieval) where it
    beats the raw vectors, and its mean gain in P@1 points (each map on its own: no best-of selection)."""
    base = _pick(t2, method=MULTILINGUAL).set_index(["pair", "retrieval"])["value"]
    rows = []
    for method, g in t2[t2["method"].str.startswith(f"{MULTILINGUAL} +")].groupby("method", sort=False):
        both = pd.concat([base.rename("raw"), g.set_index(["pair", "retrieval"])["value"].rename("map")],
                         axis=1).dropna()
        if len(both):
            rows.append({"map": method.split(" + ", 1)[1], "wins": int((both["map"] > both["raw"]).sum()),
                         "cells": len(both), "gain": float((both["map"] - both["raw"]).mean())})
    return pd.DataFrame(rows, columns=["map", "wins", "cells", "gain"])


def headline(t3: pd.DataFrame, model: str, rule: str = "ascii", margin: float = 0.0) -> str:
    """One sentence on pruning: the pruned pair whose CSLS P@1 (multilingual model) moves most clearly,
    named with the rule that ran; "raises"/"lowers" only where the pruned and unpruned 95% intervals are
    separated by more than ``margin`` points (:func:`xalign.measures.verdicts.separated`), with how many
    of the other pruned pairs move.

    Args:
        t3: Table 3's long rows (method, retrieval, pair, pruned "yes"/"no", value, lo, hi; percent).
        model: the model's name as shown.
        rule: the pruning rule that ran (a key of :data:`xalign.data.scripts.RULE_NAMES`).
        margin: the noise a rerun on another machine makes in a P@1 cell (points).

    Returns Markdown, the model's name as page text.
    """
    model = markup.text(model)
    d = _pick(t3, method=MULTILINGUAL, retrieval="CSLS")
    none = f"No pruned BLI cell was computed for {model} in this run."
    if not len(d) or not {"lo", "hi"} <= set(d.columns):
        return none
    rows = []
    for pair, g in d.groupby("pair", sort=True):
        yes, no = _pick(g, pruned="yes"), _pick(g, pruned="no")
        if len(yes) and len(no):
            y, n = yes.iloc[0], no.iloc[0]
            rows.append((pair, y, n, separated(y["lo"], y["hi"], n["lo"], n["hi"], margin), y["value"] - n["value"]))
    if not rows:
        return none
    resolved = [r for r in rows if r[3] in (UP, DOWN)]
    pair, y, n, change, _ = max(resolved or rows, key=lambda r: (abs(r[4]), r[0]))
    how = f"Pruning the candidate lists with {RULE_NAMES[rule]}"
    cell = f"{model}'s {pair} P@1 (CSLS)"
    ci = (f"from {n['value']:.1f}% (95% CI {n['lo']:.1f}–{n['hi']:.1f}) to {y['value']:.1f}% "
          f"(95% CI {y['lo']:.1f}–{y['hi']:.1f})")
    if not resolved:
        return (f"{how} moves no pruned pair's P@1 (CSLS) beyond its 95% intervals for {model}: the largest "
                f"change, {pair}, goes {ci}.")
    others, k = len(rows) - 1, len(resolved) - 1
    if others == 1:
        rest = "; the other pruned pair also moves beyond its intervals" if k else \
            "; the other pruned pair stays within its intervals"
    else:
        rest = "" if not others else (f"; none of the other {others} pruned pairs moves beyond its intervals"
                                      if not k else f"; of the other {others} pruned pairs, {k} "
                                      f"move{'s' if k == 1 else ''} beyond their intervals")
    return f"{how} {change_verb(change)} {cell} {ci}, beyond both intervals{rest}."


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
        out["ours 95% CI"] = ["–" if pd.isna(a) or pd.isna(b) else f"{a:.1f}–{b:.1f}" for a, b in zip(out["lo"], out["hi"])]
    out = out.rename(columns=cols)
    short = [cols.get(k, k) for k in keys] + [f"paper ({unit})", ours]
    short += [c for c in ("ours 95% CI", "ours - paper", "coverage (%)") if c in out.columns]
    return out, short
