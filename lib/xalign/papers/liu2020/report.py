"""Chapter 2's tables, figures and computed prose (the assembly that used to sit in the notebook).

Every function takes the run's frames and returns a frame, a figure or
Markdown text; numbers in prose come from these frames, never by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from xalign.core.markup import code, text
from xalign.measures.btsr.constants import LEVELS
from xalign.measures.btsr.pairdata import PairData
from xalign.measures.interval_text import interval
from xalign.papers.liu2020 import senses
from xalign.papers.liu2020.everymap import every_map_summary, map_changes, unmapped
from xalign.papers.liu2020.grid import btsr_baselines, original_space_scores
from xalign.papers.liu2020.itemclaims import map_findings
from xalign.papers.liu2020.seeds import across_seeds, item_claim_text

#: the baseline row of :func:`.grid.btsr_baselines` that gives words without a training vector a zero vector
ZERO_VECTOR_BASELINE = "BL(word) avg_type [type]"
#: the handled rows (:func:`.senses.word_baseline`)
BL_WORD_MISS = "BL(word) avg_type [type], no vector = miss"
BL_WORD_COVERED = "BL(word) avg_type [type], covered items"
MIM_COVERED = "avg_type wa mim [token], covered items"


def btsr_stats_table(pair_data: dict[str, PairData]) -> pd.DataFrame:
    """One row per language pair: pool sizes, the BTSR set's statistics and the splits."""
    return pd.DataFrame([{"pair": f"en-{lang}", **{f"pool: {k}": v for k, v in d.corpus.counts().items()},
                          **d.btsr.stats, "training pairs": len(d.train), "retrieval test pairs": len(d.retrieval),
                          "MUSE train pairs": len(d.dictionary)} for lang, d in pair_data.items()])


def original_table(spaces: dict, bcws: dict, scws: dict, largest: dict) -> pd.DataFrame:
    """Scores of the unmapped space per variant, raw and normalised-and-centred (``centred`` column);
    the centring means come from the largest training set's ``token wa`` anchors."""
    rows = []
    for v, sp in spaces.items():
        for centred in (False, True):
            rows.append({"variant": v, **original_space_scores(sp, bcws.get(v), scws.get(v), centred=centred,
                                                               n_sentences=int(largest[v]))})
    return pd.DataFrame(rows)


def largest_sizes(grid: pd.DataFrame) -> pd.Series:
    """The largest training size of each variant (parallel-text methods)."""
    return grid[grid.signal != "dict"].groupby("variant")["n"].max()


def table3_ours(grid: pd.DataFrame, largest: pd.Series) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows at the largest training size, our Table 3 values: P@5 in %)."""
    best = grid[(grid.signal.isin(["wa", "sa"])) & (grid.n == grid.variant.map(largest))]
    ours = best.assign(value=100 * best.btsr_p5)[["variant", "level", "signal", "technique", "value"]]
    return best, ours


def table4_ours(grid: pd.DataFrame, original: pd.DataFrame, largest: pd.Series) -> pd.DataFrame:
    """SCWS (x100): MIM maps at the largest size, the raw space (``original``, as the paper) and the
    centred one (``original (centred)``)."""
    t4 = grid[(grid.technique == "mim") & grid.signal.isin(["wa", "sa"]) & (grid.n == grid.variant.map(largest))]
    raw, cen = unmapped(original, False).reset_index(), unmapped(original, True).reset_index()
    return pd.concat([t4.assign(setting=t4.level + " " + t4.signal + " mim", value=100 * t4.scws),
                      raw.assign(setting="original", value=100 * raw.scws),
                      cen.assign(setting="original (centred)", value=100 * cen.scws)])[["variant", "setting", "value"]]


def baselines_table(spaces: dict, largest: pd.Series, original: pd.DataFrame) -> pd.DataFrame:
    """The paper's BTSR baselines per variant (maps from the largest training set) and the unmapped space.

    ``BL(word)`` comes as :func:`.senses.word_baseline`'s rows (words without a training vector never
    scored as zero vectors); ``n_items`` counts the items a row is scored on."""
    frames = []
    for v, sp in spaces.items():
        base = btsr_baselines(sp, n=int(largest[v]))
        # BL(word) scored zero vectors for words absent from the training text as if real: replaced by
        # the handled rows (no vector = miss; covered items only, beside the token map on those items)
        frames.append(base[base.baseline != ZERO_VECTOR_BASELINE].assign(variant=v, n_items=len(sp.data.btsr.items)))
        frames.append(senses.word_baseline(sp, n=int(largest[v])).assign(variant=v))
        for centred in (False, True):
            o = unmapped(original, centred).loc[v]
            frames.append(pd.DataFrame([{"baseline": f"no mapping ({'centred' if centred else 'raw'}) [token]",
                                         "mapped_with": "-", "btsr_p1": o.btsr_p1, "btsr_p5": o.btsr_p5,
                                         "variant": v, "n_items": len(sp.data.btsr.items)}]))
    return pd.concat(frames, ignore_index=True)


def retrieval_series(grid: pd.DataFrame) -> pd.DataFrame:
    """Figure 2's series: sentence retrieval P@5 (fraction) per variant, level [token]/[type], signal, size, seed."""
    sr = grid.melt(id_vars=["variant", "level", "signal", "technique", "n", *(["seed"] if "seed" in grid else [])],
                   value_vars=["sr_token", "sr_type"],
                   var_name="evaluated on", value_name="sr").dropna(subset=["sr"])
    sr["level"] = sr["level"] + " " + sr["evaluated on"].map({"sr_token": "[token]", "sr_type": "[type]"})
    return sr


def every_map_table(scores: pd.DataFrame) -> pd.DataFrame:
    """:func:`.senses.map_scores` rows (all variants) in %, with each map's change over the centred
    unmapped space of its variant (points), on all items and on the items with a same-form distractor."""
    out = []
    for v, d in scores.groupby("variant", sort=False):
        ref = d[d["method"] == "no mapping (centred)"].iloc[0]
        for _, r in d.iterrows():
            row = {"variant": v, "method": r["method"], "n": int(r["n"])}
            for k in (1, 5):
                row[f"P@{k} (%)"] = 100 * r[f"btsr_p{k}"]
                row[f"P@{k}, distractor items (%)"] = 100 * r[f"btsr_p{k}_distractor"]
            for k in (1, 5):
                row[f"P@{k} change (points)"] = 100 * (r[f"btsr_p{k}"] - ref[f"btsr_p{k}"])
            row["P@1 change, distractor items (points)"] = 100 * (r["btsr_p1_distractor"] - ref["btsr_p1_distractor"])
            row["distractor items"] = int(r["n_distractor_items"])
            out.append(row)
    return pd.DataFrame(out)


def ceiling_of(word_form: pd.DataFrame, k: int = 5, distractor: bool = False) -> dict[str, float]:
    """Variant -> the word-form ceiling of P@k (%), on all items or on the items with a distractor."""
    col = f"word-form ceiling P@{k}, distractor items (%)" if distractor else f"word-form ceiling P@{k} (%)"
    return dict(zip(word_form["variant"], word_form[col]))


def word_form_note(word_form: pd.DataFrame) -> str:
    """What P@5 can and cannot see on this set, per variant, from the word-form ceiling (computed)."""
    parts = []
    for _, r in word_form.iterrows():
        parts.append(f"*{r['variant']}*: {int(r['items with a same-form distractor']):,} of {int(r['test items']):,} "
                     f"test items have a same-form distractor and at most "
                     f"{int(r['most candidates sharing a gold' + chr(39) + 's form'])} candidates (the gold included) "
                     f"share a gold's word form, so a retriever that "
                     f"knows only the word form scores P@5 = {r['word-form ceiling P@5 (%)']:.1f} % and P@1 = "
                     f"{r['word-form ceiling P@1 (%)']:.1f} %")
    see = ("P@5 cannot tell senses apart on this set" if (word_form["word-form ceiling P@5 (%)"] >= 99.95).all()
           else "P@5 can tell senses apart only below that ceiling")
    return ("**What BTSR P@k can see here.** " + "; ".join(parts) + f". So {see}: P@1 is the measure, and the "
            "items with a same-form distractor (the only ones where the sense decides) are scored on their own.")


# --------------------------------------------------------------------------- the page: tables and prose
#: the paper's training text for Table 3 and Table 4 (parallel sentence pairs)
PAPER_TRAINING_PAIRS = 200_000


def shown(frame: pd.DataFrame, unit: str = "P@5 %") -> pd.DataFrame:
    """A compared frame (``paper``, ``ours``, ``diff``) for :func:`xalign.book.display.table`, the unit in
    the headers."""
    return frame.rename(columns={"paper": f"paper ({unit})", "ours": f"ours ({unit})",
                                 "diff": "diff (ours − paper, points)"})


def table3_page(t3: pd.DataFrame, scores: pd.DataFrame, word_form: pd.DataFrame) -> pd.DataFrame:
    """Table 3 for the page: the paper's P@5 beside our mean over the seeds, the seed range (min-max) and SD,
    the first seed's 95 % bootstrap interval over the test items, the difference and the word-form ceiling.

    Args:
        t3: the compared Table 3 (``paper``, ``ours`` = the mean over seeds, ``seed SD`` / ``min`` / ``max``, ``diff``).
        scores: :func:`.senses.map_scores` rows with a ``variant`` column (the first seed; ``btsr_p5_lo`` /
            ``btsr_p5_hi`` fractions).
        word_form: :func:`.senses.word_form_table` rows (the ceiling per variant).

    Returns:
        one row per cell, P@5 in % (intervals as ``"[lo, hi]"`` strings).
    """
    ci = scores[scores["n"] > 0].assign(
        ci=lambda d: [interval(100 * lo, 100 * hi) for lo, hi in zip(d["btsr_p5_lo"], d["btsr_p5_hi"])])
    ci = dict(zip(zip(ci["variant"], ci["method"]), ci["ci"]))
    method = t3["level"].astype(str) + " " + t3["signal"].astype(str) + " " + t3["technique"].astype(str)
    out = shown(t3).assign(**{
        "seed range (min–max)": [f"{lo:.1f}–{hi:.1f}" if pd.notna(lo) else "" for lo, hi in
                                 zip(t3["seed min"], t3["seed max"])],
        "seed SD": t3["seed SD"],
        "first seed: 95 % CI over items": [ci.get((v, m), "") for v, m in zip(t3["variant"], method)],
        "word-form ceiling (P@5 %)": t3["variant"].map(ceiling_of(word_form))})
    out = out.rename(columns={"ours (P@5 %)": "ours: mean over seeds (P@5 %)"})
    return out[["variant", "level", "signal", "technique", "paper (P@5 %)", "ours: mean over seeds (P@5 %)",
                "seed range (min–max)", "seed SD", "first seed: 95 % CI over items", "diff (ours − paper, points)",
                "word-form ceiling (P@5 %)"]]


def btsr_samples(pair_data: dict[str, PairData], n: int = 8, seed: int = 0) -> pd.DataFrame:
    """A random sample of each language pair's test pairs, one frame with a ``pair`` column first."""
    from xalign.papers.liu2020.grid import btsr_sample

    frames = [btsr_sample(d, n=n, seed=seed).assign(pair=f"en-{lang}") for lang, d in pair_data.items()]
    out = pd.concat(frames, ignore_index=True)
    return out[["pair", *[c for c in out.columns if c != "pair"]]]


def times_less(ours: Sequence[float], paper: float = PAPER_TRAINING_PAIRS) -> str:
    """``"45 times less"`` (or ``"45-46 times less"``): the paper's training text over ours, computed."""
    ratios = sorted({round(paper / float(n)) for n in ours if n})
    if not ratios:
        return "no training text to compare"
    return (f"{ratios[0]} times less" if len(ratios) == 1 else f"{ratios[0]}-{ratios[-1]} times less")


def wordsim_note(n_bcws: int, total_bcws: int, n_scws: int, total_scws: int) -> str:
    """How many BCWS and SCWS items the run scores, of how many in the files."""
    part = lambda n, total: f"all {total:,}" if n >= total else f"{n:,} of {total:,}"
    return (f"This run scores {part(n_bcws, total_bcws)} BCWS items and {part(n_scws, total_scws)} SCWS pairs "
            f"(where it uses fewer, each seed draws its own random sample; the first seed's is named here).")


def scale_note(grid: pd.DataFrame, largest: pd.Series, stats: pd.DataFrame, paper_t3: pd.DataFrame,
               model: str = "multilingual-e5-small", ceiling5: dict | None = None,
               table3_seeds: pd.DataFrame | None = None) -> str:
    """Why our P@k levels are not the paper's: our range (Table 3's P@5 means over the seeds where
    ``table3_seeds`` has them, else the first seed's, named so), the paper's range, candidates, training text."""
    t3 = None if table3_seeds is None else table3_seeds[table3_seeds["measure"] == "P@5"]
    if t3 is not None and len(t3) and int(t3["n_seeds"].max()) > 1:
        ours, which = t3["mean"].dropna(), f"Table 3, mean over {int(t3['n_seeds'].max())} seeds"
    else:
        best = grid[grid.signal.isin(["wa", "sa"]) & (grid.n == grid.variant.map(largest))]
        ours, which = 100 * best["btsr_p5"].dropna(), "first seed"
    cands = ", ".join(f"{r['pair']}: {int(r['candidates']):,}" for _, r in stats.iterrows())
    ceil = (f" (word-form ceiling {', '.join(f'{c:.1f}' for c in dict.fromkeys(round(x, 1) for x in ceiling5.values()))}"
            " %)") if ceiling5 else ""
    return (f"**Levels are not comparable with the paper's.** Our BTSR P@5 at the largest training size ({which}) "
            f"spans "
            f"{ours.min():.1f}-{ours.max():.1f} %{ceil}, the paper's Table 3 {paper_t3['value'].min():.1f}-"
            f"{paper_t3['value'].max():.1f} %: far fewer candidates ({cands}; the paper 200,000), an automatically "
            f"built set, {model_words(model)} and "
            f"{times_less(largest.values)} training text ({', '.join(f'{int(n):,}' for n in largest.values)} "
            f"sentence pairs; the paper {PAPER_TRAINING_PAIRS:,}).")


def model_words(model: str) -> str:
    """What model ran, against the paper's, in words (Markdown; the name as page text)."""
    if model in ("bert-base-multilingual-cased", "bert-base-multilingual-uncased"):
        return f"the paper's own model ({text(model)})"
    return f"a different model ({text(model)}, not the paper's mBERT)"


def claim_values(run, v: str) -> tuple[dict[str, float], str]:
    """The differences behind each of the paper's claims, for one seed's run of variant ``v`` (points).

    Args:
        run: a :class:`~xalign.papers.liu2020.seeds.SeedRun` (its ``grid``, ``original``, ``base``, ``largest``).
        v: the variant.

    Returns:
        ({claim: difference in points; BTSR P@1 except ``tasks``, P@5}, the level next to ``avg_type``).
        Claims: ``levels`` (avg_type's mean P@1 minus the next level's), ``mim``, ``dict``, ``map``,
        ``context`` (NaN without the covered baseline rows), ``tasks`` (sentence retrieval minus BTSR P@5).
    """
    g = run.grid[(run.grid.variant == v) & run.grid.n.isin([run.largest[v], 0])].set_index("method")
    p1 = 100 * g["btsr_p1"]
    b = 100 * run.base[run.base.variant == v].set_index("baseline")["btsr_p1"]
    levels = {lv: p1[[m for m in p1.index if m.startswith(lv + " ")]].mean() for lv in LEVELS}
    other = max((lv for lv in levels if lv != "avg_type"), key=lambda lv: levels[lv])
    mim = p1.get("avg_type wa mim")
    ctx = b[MIM_COVERED] - b[BL_WORD_COVERED] if BL_WORD_COVERED in b.index and MIM_COVERED in b.index else float("nan")
    return {"levels": levels["avg_type"] - levels[other], "mim": mim - p1.get("avg_type wa orig"),
            "dict": p1.get("avg_type dict orig") - p1.get("avg_type wa orig"),
            "map": mim - 100 * unmapped(run.original, True).loc[v, "btsr_p1"], "context": ctx,
            "tasks": 100 * (g.loc["avg_type wa mim", "sr_token"] - g.loc["avg_type wa mim", "btsr_p5"])}, other


def seed_note(runs: dict, table3_seeds: pd.DataFrame | None = None) -> str:
    """How far the numbers move with the seed: the seeds run and, from ``table3_seeds``
    (:func:`~xalign.papers.liu2020.seeds.seed_summary` of Table 3's P@5 and P@1), the largest max - min."""
    seeds = ", ".join(str(s) for s in runs)
    if len(runs) < 2:
        return (f"**One seed ({seeds}).** The word aligner draws nothing at random, but the BTSR draws, the samples "
                "and the training order hang on the seed; with one seed their spread is not measured, so every "
                "claim below holds for this seed only.")
    spread = ""
    if table3_seeds is not None and len(table3_seeds):
        by = table3_seeds.groupby("measure")["spread"].max()
        spread = " Over them, Table 3's cells move by up to " + " and ".join(
            f"{by[m]:.1f} points ({m})" for m in by.index) + " (max − min over the seeds)."
    return (f"**{len(runs)} seeds ({seeds}).** Each seed redraws the BTSR contexts, items and candidate fillers, "
            "the training order, the avg_type context sample and the BCWS / SCWS samples; the word aligner "
            f"(fast_align) draws nothing at random, so its own spread is 0 by construction.{spread} A claim comparing "
            "two maps on the same items is stated as a finding only when its paired 95% interval over the items "
            "excludes zero and every seed's difference has that sign (else: within noise); a claim without such "
            "an interval is stated when every seed agrees, and labelled unstable otherwise.")


def evidence(runs: dict, variants, stats: pd.DataFrame, paper_t3: pd.DataFrame, model: str = "multilingual-e5-small",
             word_form: pd.DataFrame | None = None, every: pd.DataFrame | None = None,
             table3_seeds: pd.DataFrame | None = None, item_claims: pd.DataFrame | None = None) -> str:
    """The closing section as Markdown: the paper's claims checked on every seed's run, every number computed,
    each difference stated as a finding only where it has the same sign for every seed.

    Args:
        runs: seed -> :class:`~xalign.papers.liu2020.seeds.SeedRun`, the first seed's being the one shown.
        variants: the model pairs, in the chapter's order.
        stats: :func:`btsr_stats_table` of the first seed's set; ``paper_t3``: the paper's Table 3 (%).
        word_form: the word-form ceiling (:func:`.senses.word_form_table`), stated beside every P@5.
        every: :func:`every_map_table` of the first seed (every map against no map).
        table3_seeds: Table 3's spread over the seeds (``measure`` column: P@5, P@1), for the opening note.
        item_claims: :func:`.itemclaims.claims_table` (paired intervals over the items): the levels, MIM,
            dictionary and map claims are worded from it (a finding only where its interval excludes zero and
            the seeds agree; else "within noise"); without it, from the seeds' signs alone.

    Returns:
        numbered Markdown items. The claims use BTSR **P@1** (P@5 reaches the word-form ceiling, so it
        cannot see senses); ``BL(word)`` is compared on the items whose words have a training vector.
    """
    first = runs[next(iter(runs))]
    ceil5 = ceiling_of(word_form) if word_form is not None else {}
    items = [seed_note(runs, table3_seeds),
             scale_note(first.grid, first.largest, stats, paper_t3, model, ceil5, table3_seeds)]
    if word_form is not None and len(word_form):
        items.append(word_form_note(word_form))
    for v in variants:
        per = [claim_values(r, v) for r in runs.values()]
        vals = {c: [p[0][c] for p in per] for c in per[0][0]}
        nxt = " / ".join(dict.fromkeys(p[1] for p in per))
        rows = {} if item_claims is None else {r["claim"]: r for r in item_claims[
            (item_claims["variant"] == v) & (item_claims["measure"] == "P@1")].to_dict("records")}

        def said(claim, up, down, what, rows=rows, vals=vals):
            return item_claim_text(rows[claim], up, down, what) if claim in rows else \
                across_seeds(vals[claim], up, down, what)
        claims = [
            f"`avg_type` as the most robust level (mean P@1 of each level's maps against the next level, `{nxt}`): "
            + said("levels", "it leads the other levels", "another level leads it", "its maps and the next level's"),
            "MIM on `avg_type wa`: " + said("mim", "it helps", "it hurts", "with and without MIM"),
            "a 5k dictionary against parallel text (`avg_type`, no MIM): " + said(
                "dict", "the dictionary is better", "parallel text is better", "the two"),
            "what the map adds (`avg_type wa mim` against the centred unmapped space): " + said(
                "map", "the map helps", "the map hurts", "the mapped and unmapped spaces"),
        ]
        covered = first.base[(first.base.variant == v) & (first.base.baseline == BL_WORD_COVERED)]
        if len(covered):
            claims.append(f"what the context adds (`avg_type wa mim` against `BL(word)`, on the "
                          f"{int(covered['n_items'].iloc[0]):,} items whose query and gold have a training vector"
                          f"{', first seed' if len(runs) > 1 else ''}): " + across_seeds(
                              vals["context"], "context helps", "the word alone does better",
                              "word in context and word alone"))
        c5 = f"; BTSR P@5's word-form ceiling {ceil5[v]:.1f} %" if v in ceil5 else ""
        claims.append(f"BTSR against sentence retrieval (`avg_type wa mim`, both P@5{c5}): " + across_seeds(
            vals["tasks"], "BTSR is the harder task", "BTSR is the easier task", "the two tasks"))
        sizes = sorted({int(r.largest[v]) for r in runs.values()})
        size = f"{sizes[0]:,}" if len(sizes) == 1 else f"{sizes[0]:,}-{sizes[-1]:,}"
        items.append(f"**{v}** (maps from {size} sentence pairs; BTSR P@1 unless stated; mean over the seeds and "
                     "its range): " + "; ".join(claims) + ".")
    if every is not None:
        found = map_findings(runs, variants)
        items.append(every_map_summary(every, map_changes(runs), found if len(found) else None))
    return "\n".join(f"{i}. {t}" for i, t in enumerate([t for t in items if t], start=1))


def headline(grid: pd.DataFrame, largest: pd.Series, stats: pd.DataFrame, variant: str, model: str,
             method: str = "avg_type wa mim", table3_seeds: pd.DataFrame | None = None) -> str:
    """The chapter in one sentence: BTSR P@1 of ``method`` for ``variant`` (P@1 because P@5 cannot tell the
    senses apart on this set: few same-form candidates).

    With ``table3_seeds`` (the seed summary: ``measure``, ``mean``, ``min``, ``max``, ``n_seeds``) the
    sentence gives the mean over the seeds and their range, and names the Wilson 95 % interval over the test
    pairs as the first seed's; without it, the first seed's value and interval, named as such.
    """
    from scipy.stats import binomtest

    row = grid[(grid.variant == variant) & (grid.method == method) & (grid.n == largest[variant])]
    lang = variant.rsplit("_", 1)[-1]
    st = stats[stats["pair"] == f"en-{lang}"]
    if not len(row) or not len(st):
        return ""
    n, p1 = int(st["test_pairs"].iloc[0]), float(row["btsr_p1"].iloc[0])
    ci = binomtest(round(p1 * n), n).proportion_ci(confidence_level=0.95, method="wilson")
    first = interval(100 * ci.low, 100 * ci.high)
    level, signal, technique = method.split()
    seeds = pd.DataFrame() if table3_seeds is None else table3_seeds[
        (table3_seeds["variant"] == variant) & (table3_seeds["measure"] == "P@1")
        & (table3_seeds["level"] == level) & (table3_seeds["signal"] == signal)
        & (table3_seeds["technique"] == technique)]
    if len(seeds) and int(seeds["n_seeds"].iloc[0]) > 1:
        s = seeds.iloc[0]
        share = (f"{s['mean']:.1f} % of {n:,} English test words on average over {int(s['n_seeds'])} seeds "
                 f"(BTSR P@1, from {s['min']:.1f} to {s['max']:.1f} %; the first seed's 95% CI over the "
                 f"test words {first})")
    else:
        share = f"{100 * p1:.1f} % of {n:,} English test words (BTSR P@1, first seed, 95% CI {first})"
    return (f"Aligned with {code(method)} from {int(largest[variant]):,} sentence pairs, {text(model)} finds "
            f"the right translation in context for {share} among "
            f"{int(st['candidates'].iloc[0]):,} en-{lang} candidates.")


def original_shown(original: pd.DataFrame) -> pd.DataFrame:
    """The unmapped space's scores for display: percentages and rho x100, named with their units."""
    cols = {"btsr_p1": "BTSR P@1 (%)", "btsr_p5": "BTSR P@5 (%)", "sr_token": "retrieval P@5 [token] (%)",
            "sr_type": "retrieval P@5 [type] (%)", "bcws": "BCWS (rho x100)", "scws": "SCWS (rho x100)"}
    out = original[["variant", "centred", *[c for c in cols if c in original.columns]]].copy()
    for c in cols:
        if c in out.columns:
            out[c] = 100 * out[c]
    return out.rename(columns=cols)
