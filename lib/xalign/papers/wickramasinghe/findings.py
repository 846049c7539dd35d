"""Chapter 4's prose generated from its tables: the closing findings, the pruning verdict and the headline.

Every direction a sentence states ("raises", "lowers") is decided by the book's verdict rule
(:mod:`xalign.measures.verdicts`) from the tables' 95% intervals; the tables themselves are built by
:mod:`.report`.
"""

from __future__ import annotations

import pandas as pd

from xalign.core import markup
from xalign.data.scripts import RULE_NAMES
from xalign.measures import interval_text
from xalign.measures.verdicts import DOWN, UP, change_verb, separated
from xalign.papers.wickramasinghe.report import MULTILINGUAL, _pick, relative_improvement, table5


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

    Compares, per pair and retrieval, the pruned interval with the unpruned one by the book's rule
    (:func:`xalign.measures.verdicts.separated`, as the headline does): a rise or a fall counts only when
    the two intervals do not overlap.
    """
    d = _pick(t3, method=MULTILINGUAL)
    if not len(d) or "lo" not in d:
        return ""
    wide = d.pivot_table(index=["pair", "retrieval"], columns="pruned", values=["value", "lo", "hi"], aggfunc="first")
    if ("value", "no") not in wide or ("value", "yes") not in wide:
        return ""
    ways = [separated(a, b, c, d) for a, b, c, d in zip(wide[("lo", "yes")], wide[("hi", "yes")],
                                                         wide[("lo", "no")], wide[("hi", "no")])]
    n, n_up, n_down = len(wide), ways.count(UP), ways.count(DOWN)
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
    ci = (f"from {n['value']:.1f}% ({interval_text.ci(n['lo'], n['hi'])}) to {y['value']:.1f}% "
          f"({interval_text.ci(y['lo'], y['hi'])})")
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
