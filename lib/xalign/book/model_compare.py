"""Model against model: paired-bootstrap differences of two cards on the same items, and each card's layer choice.

Two cards run with the same battery (:class:`xalign.card.battery.CardConfig`, the bootstrap count aside)
score the same items: the same Tatoeba pairs, STS pairs, XNLI rows, BLI queries, word pairs. Each card
keeps its per-item outcomes at its reported layer (:mod:`xalign.card.items`), so the difference
between two models is resampled item by item (:func:`xalign.measures.paired.stat_difference_ci`): an
interval of the difference itself, narrower than two separate intervals set side by side. Each model is
taken at its own best layer (the card's main score), so the difference is that of the two main scores.
"""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd

from xalign.card.battery import ITEM_STATS, MEASURES, CardConfig
from xalign.card.items import decode_items, top_layers
from xalign.core.markup import code, text
from xalign.measures.interval_text import interval
from xalign.measures.paired import stat_difference_ci

#: settings that do not change which items a card scores
NOT_SAMPLE = ("n_boot",)


def sample_differences(card_a: dict, card_b: dict) -> list[str]:
    """The battery settings in which two cards differ (other than the bootstrap count): empty when they
    score the same items."""
    from dataclasses import asdict

    defaults = json.loads(json.dumps(asdict(CardConfig())))  # a setting added later: older cards ran its default
    a, b = {**defaults, **card_a.get("config", {})}, {**defaults, **card_b.get("config", {})}
    return sorted(k for k in set(a) | set(b) if k not in NOT_SAMPLE and a.get(k) != b.get(k))


def measure_difference(card_a: dict, card_b: dict, mid: str) -> dict:
    """One measure: card_a's main score minus card_b's, with its paired 95% bootstrap interval.

    Args:
        card_a, card_b: card dictionaries (``xalign card`` result files) with the same battery.
        mid: a measure id of :data:`xalign.card.battery.MEASURES`.

    Returns:
        ``measure, layer_a, score_a, layer_b, score_b, difference, lo, hi, n`` (the difference in the
        measure's unit: percentage points for accuracies, Spearman x 100 points for STS) and ``note``:
        empty, or why there is no paired interval (the measure is missing from a card, or a card keeps no
        per-item outcomes for it); then the difference is that of the main scores and lo/hi are NaN.
    """
    ra, rb = card_a["measures"].get(mid), card_b["measures"].get(mid)
    row = {"measure": mid, "layer_a": None, "score_a": np.nan, "layer_b": None, "score_b": np.nan,
           "difference": np.nan, "lo": np.nan, "hi": np.nan, "n": 0, "note": ""}
    missing = [c["model"] for c, r in ((card_a, ra), (card_b, rb)) if r is None]
    if missing:
        return {**row, "note": f"not measured for {', '.join(missing)}"}
    row.update(layer_a=ra["best_layer"], score_a=ra["main_score"], layer_b=rb["best_layer"],
               score_b=rb["main_score"], difference=ra["main_score"] - rb["main_score"])
    no_items = [c["model"] for c, r in ((card_a, ra), (card_b, rb)) if "items" not in r]
    if no_items:
        return {**row, "note": f"no per-item outcomes in the card of {', '.join(no_items)}"}
    a, b = decode_items(ra["items"]), decode_items(rb["items"])
    if a.shape != b.shape:
        return {**row, "note": f"not the same items ({a.shape[0]} and {b.shape[0]})"}
    cfg = card_a.get("config", {})
    n_boot, seed = int(cfg.get("n_boot", 1000)), int(cfg.get("seed", 0))
    stat = ITEM_STATS.get(mid)
    if stat is None:  # 0/1 hits: the card's score is their mean in percent
        d, lo, hi = (100 * v for v in stat_difference_ci(a, b, np.mean, n_boot=n_boot, seed=seed))
    else:
        d, lo, hi = stat_difference_ci(a, b, stat, n_boot=n_boot, seed=seed)
    return {**row, "difference": d, "lo": lo, "hi": hi, "n": int(a.shape[0])}


def paired_differences(card_a: dict, card_b: dict) -> pd.DataFrame:
    """Every measure of :data:`~xalign.card.battery.MEASURES`: card_a minus card_b (:func:`measure_difference`).

    Raises:
        ValueError: the cards' batteries differ (they do not score the same items); the settings are named.
    """
    differ = sample_differences(card_a, card_b)
    if differ:
        raise ValueError(f"cards of {card_a['model']} and {card_b['model']} were run with different batteries "
                         f"({', '.join(differ)}): not the same items, no paired comparison; run both with the "
                         "same settings (xalign card --profile/--set)")
    return pd.DataFrame([measure_difference(card_a, card_b, mid) for mid in MEASURES])


def card_precision(card: dict) -> str:
    """What a card computed in, as a word ("bfloat16", "float32"; cards from before precisions were recorded,
    and models outside torch, computed in float32)."""
    p = card.get("precision")
    return "float32" if p in (None, "torch.float32", "float32", "float32 (not torch)") else str(p).removeprefix("torch.")


def precision_note(cards: list[dict]) -> str:
    """A sentence when cards compared item by item computed in different precisions (each named), else "":
    part of each difference is then the precision's (bfloat16 moves a card's values by up to about half a
    point, see the Compare models page's precision table), not the models'."""
    kinds = {c["model"]: card_precision(c) for c in cards}
    if len(set(kinds.values())) < 2:
        return ""
    return ("Computed in different precisions (" + ", ".join(f"{code(m)} in {p}" for m, p in kinds.items())
            + "): part of each difference is the precision's, not the models'; for the models alone, run the cards "
              "in one precision (xalign card --set precision float32).")


def _cell(r, markdown: bool = True) -> str:
    """``+1.2 [-0.5, +2.9]``; when its interval excludes 0, the difference in bold (Markdown) or marked
    ``*`` (plain text)."""
    if pd.isna(r["difference"]):
        return "–"
    if pd.isna(r["lo"]):
        return f"{r['difference']:+.1f} (no interval)"
    d = f"{r['difference']:+.1f}"
    beyond = r["lo"] > 0 or r["hi"] < 0
    if not markdown:
        return f"{d} {interval(r['lo'], r['hi'], signed=True)}" + (" *" if beyond else "")
    return f"{f'**{d}**' if beyond else d} {interval(r['lo'], r['hi'], signed=True)}"


def _text(v) -> str:
    return "" if v is None or (isinstance(v, float) and np.isnan(v)) else text(v)


def pairs_of(cards: list[dict], models: list[str] | None = None) -> list[tuple[dict, dict]]:
    """Every two cards (of ``models``, in that order, when given) that ran the same battery.

    Raises:
        ValueError: a model of ``models`` has no card (the models with cards are named).
    """
    by_name = {c["model"]: c for c in cards}
    if models:
        unknown = [m for m in models if m not in by_name]
        if unknown:
            raise ValueError(f"no card of {unknown}; cards: {', '.join(sorted(by_name)) or 'none'}")
        cards = [by_name[m] for m in models]
    return [(a, b) for a, b in combinations(cards, 2)]


def paired_markdown(cards: list[dict], models: list[str] | None = None) -> str:
    """Markdown: for each two cards, every measure's difference with its paired 95% interval (one table per
    pair); a pair with different batteries is named, without a table."""
    out = []
    for a, b in pairs_of(cards, models):
        out.append(f"### {code(a['model'])} minus {code(b['model'])}\n")
        differ = sample_differences(a, b)
        if differ:
            out.append(f"Not comparable item by item: different batteries ({text(', '.join(differ))}).\n")
            continue
        df = paired_differences(a, b)
        if note := precision_note([a, b]):
            out.append(note + "\n")
        out += ["| Measure (unit) | Layer A | A | Layer B | B | A − B [95% paired CI] | items | note |",
                "|---|---|---|---|---|---|---|---|"]
        for _, r in df.iterrows():
            t, _, unit = MEASURES[r["measure"]]
            fmt = (lambda v: "" if pd.isna(v) else f"{v:.1f}")
            out.append(f"| {t} ({unit}) | {_text(r['layer_a'])} | {fmt(r['score_a'])} | {_text(r['layer_b'])} | "
                       f"{fmt(r['score_b'])} | {_cell(r)} | {r['n'] or ''} | {text(r['note'])} |")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")


def paired_text(cards: list[dict], models: list[str] | None = None) -> str:
    """:func:`paired_markdown` as plain-text tables for a terminal (aligned columns, no Markdown): for each
    two cards, every measure's difference with its paired 95% interval; ``*``: the interval excludes 0."""
    out = []
    for a, b in pairs_of(cards, models):
        out.append(f"{a['model']} minus {b['model']}")
        differ = sample_differences(a, b)
        if differ:
            out += [f"  not comparable item by item: different batteries ({', '.join(differ)})", ""]
            continue
        rows = [{"measure (unit)": f"{MEASURES[r['measure']][0]} ({MEASURES[r['measure']][2]})",
                 "layer A": _text(r["layer_a"]), "A": "" if pd.isna(r["score_a"]) else f"{r['score_a']:.1f}",
                 "layer B": _text(r["layer_b"]), "B": "" if pd.isna(r["score_b"]) else f"{r['score_b']:.1f}",
                 "A - B [95% paired CI]": _cell(r, markdown=False), "items": r["n"] or "", "note": r["note"]}
                for _, r in paired_differences(a, b).iterrows()]
        frame = pd.DataFrame(rows)
        width = int(frame["measure (unit)"].str.len().max())
        table = frame.to_string(index=False, justify="left", formatters={"measure (unit)": lambda t, w=width: t.ljust(w)})
        out += [*(line.rstrip() for line in table.splitlines()), ""]
    if out:
        out.append("*: the 95% paired bootstrap interval of A - B excludes 0.")
    return "\n".join(out) + ("\n" if out else "")


def paired_page_markdown(cards: list[dict]) -> str:
    """The "Compare models" page's section: one row per measure, one column per two models (A − B at each
    model's best layer, with its paired 95% bootstrap interval over the same items)."""
    pairs = [(a, b) for a, b in pairs_of(cards) if not sample_differences(a, b)]
    if not pairs:
        return ""
    from xalign.book.ledger import short_model

    frames = {text(f"{short_model(a['model'])} − {short_model(b['model'])}"): paired_differences(a, b) for a, b in pairs}
    lines = ["## Model against model", "",
             ("Each cell: the first model's score minus the second's, each at its own best layer, on the same "
              "items, with a 95% paired bootstrap interval (the items resampled once for both models; "
              f"{text(pairs[0][0]['config'].get('n_boot', 1000))} resamples). In bold: the interval excludes 0, a "
              "difference the sample shows; \"no interval\": a card keeps no per-item outcomes for that "
              "measure (BTSR's P@1 gives tied candidates fractional credit), so only the scores are "
              "subtracted. Cards run with different batteries are left out."), "",
             "| Measure (unit) | " + " | ".join(frames) + " |", "|---" * (len(frames) + 1) + "|"]
    for i, mid in enumerate(MEASURES):
        t, _, unit = MEASURES[mid]
        lines.append(f"| {t} ({unit}) | " + " | ".join(_cell(df.iloc[i]) for df in frames.values()) + " |")
    mixed = {c["model"] for a, b in pairs for c in (a, b) if precision_note([a, b])}  # in a pair of two precisions
    if mixed:  # one sentence for the whole table, each card named once
        lines += ["", precision_note([c for c in cards_in(pairs) if c["model"] in mixed])]
    return "\n".join(lines) + "\n"


def cards_in(pairs: list[tuple[dict, dict]]) -> list[dict]:
    """The cards of ``pairs``, each once, in order of appearance."""
    seen: dict[str, dict] = {}
    for a, b in pairs:
        for c in (a, b):
            seen.setdefault(c["model"], c)
    return list(seen.values())


def layer_choice_markdown(card: dict, n: int = 3) -> str:
    """A card's "Which layer is best" section: per measure, the layers that win most often among the
    bootstrap resamples, with their shares (an interval on the best layer, not only on its score)."""
    rows = [(text(r["title"]), text(r["best_layer"]), top_layers(r["best_layer_shares"], n))
            for r in card["measures"].values() if r.get("best_layer_shares")]
    if not rows:
        return ""
    lines = ["## Which layer is best", "",
             (f"Share of {text(card['config'].get('n_boot', 1000))} bootstrap resamples of the items (every layer scored "
              "on the same resample) in which each layer has the highest score; the top "
              f"{n} layers. A share near 1: the sample settles the best layer; several layers with large "
              "shares: it does not."), "",
             "| Measure | Best layer | Layers that win (share of resamples) |", "|---|---|---|"]
    for title, best, top in rows:
        lines.append(f"| {title} | {best} | " + ", ".join(f"{text(lab)}: {s:.1%}" for lab, s in top) + " |")
    return "\n".join(lines) + "\n"
