"""Write a model card (JSON result, per-layer curves, Markdown and HTML page) and the models x measures table.

Layout under ``results/cards/``: ``<model>.json`` (the result file) and
``<model>/card.md``, ``card.html``, ``curves.png``. :func:`compare_table`
reads every ``*.json`` there.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from xalign.book.model_compare import card_precision, layer_choice_markdown
from xalign.book.result_files import finished_text
from xalign.card.battery import MEASURES, WORDS_IN_CONTEXT, slug
from xalign.card.receipts import receipts_markdown
from xalign.card.result import cards_dir, load_cards, read_card, write_card
from xalign.card.sizes import sample_size
from xalign.core.atomic import write_text
from xalign.core.markup import code, text
from xalign.core.names import case_safe, unique_name

#: the papers' published numbers used as reference rows: measure -> (paper, table, how the row is read)
REFERENCE_MODELS = {"mBERT": "mBERT", "XLM-R": "XLM-R", "LaBSE": "LaBSE"}


def paper_references() -> pd.DataFrame:
    """The papers' numbers for mBERT, XLM-R and LaBSE next to our measures (``measure, model, value, source``).

    Each row is the paper's own protocol and sample (e.g. 36 Tatoeba languages,
    fine-tuned XNLI classifiers), not the card's: a reference, not a like-for-like score.
    """
    from xalign.data.paper_tables import paper_table

    rows = []
    t1 = paper_table("calibrated2023", "table1")
    for model in ("mBERT", "XLM-R", "LaBSE"):
        for task, mid in (("CLSR", "tatoeba_nn_xx-en"), ("STS", "sts")):
            v = t1[(t1.model == model) & (t1.setup == "none") & (t1.task == task)]["value"]
            if len(v):
                rows.append({"measure": mid, "model": model, "value": float(v.iloc[0]),
                             "source": f"calibrated2023 Table 1 ({'36 Tatoeba languages' if task == 'CLSR' else '3 STS tracks'})"})
    t4 = paper_table("calibrated2023", "table4")
    for model in ("mBERT", "XLM-R", "LaBSE"):
        v = t4[(t4.block == "transfer_rate") & (t4.model == model) & (t4.lang == "avg")]["value"]
        if len(v):
            rows.append({"measure": "xnli_transfer_rate", "model": model, "value": float(v.iloc[0]),
                         "source": "calibrated2023 Table 4 (fine-tuned, 14 languages)"})
    for table, mid in (("table3", "s_weak"), ("table4", "s_strong")):
        t = paper_table("gaschi2022", table)
        for model, label in (("mBERT", "mBERT"), ("XLM-R Large", "XLM-R")):
            v = t[(t.model == model) & (t.layer == "best") & (t.pair == "de-en")]["value"]
            if len(v):
                rows.append({"measure": mid, "model": label, "value": float(v.iloc[0]),
                             "source": f"gaschi2022 Table {'III' if table == 'table3' else 'IV'} (de-en, best layer)"})
    t = paper_table("wickramasinghe", "table1")
    for model in ("mBERT", "XLM-R", "LaBSE"):
        for retrieval, mid in (("NN", "bli_nn"), ("CSLS", "bli_csls")):
            v = t[(t.model == model) & (t.direction == "En-X") & (t.retrieval == retrieval) & (t.k == 1)
                  & t.lang.isin(["es", "zh"])]["value"]
            if len(v):
                rows.append({"measure": mid, "model": model, "value": float(v.mean()),
                             "source": "wickramasinghe Table 1 (En-es, En-zh pruned; 200k vocabulary)"})
    return pd.DataFrame(rows)


def save_card(card: dict, root: str | Path | None = None) -> Path:
    """Write the result file, the curves and the page; returns the HTML page's path."""
    root = cards_dir(root)
    name = case_safe(root, slug(card["model"]), card["model"])
    write_card(card, root / f"{name}.json")
    page = root / name
    page.mkdir(parents=True, exist_ok=True)
    plot_curves(card, page / "curves.png")
    md = card_markdown(card, "curves.png")
    write_text(page / "card.md", md)
    write_text(page / "card.html", markdown_to_html(md, f"xalign card: {card['model']}"))
    return page / "card.html"


def plot_curves(card: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = list(card["measures"].items())
    cols = 4
    rows = max(1, -(-len(items) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.5 * rows), squeeze=False)
    for ax, (mid, r) in zip(axes.flat, items):
        labels = [x["layer"] for x in r["layers"]]
        xs = list(range(len(labels)))
        ax.plot(xs, [x["value"] for x in r["layers"]], marker="o", ms=3)
        ax.fill_between(xs, [x["lo"] for x in r["layers"]], [x["hi"] for x in r["layers"]], alpha=0.25)
        ax.axvline(labels.index(r["best_layer"]), color="grey", lw=0.8, ls="--")
        ax.set_title(r["title"], fontsize=8)
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=6)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_ylabel(r["unit"], fontsize=7)
    for ax in list(axes.flat)[len(items):]:
        ax.axis("off")
    fig.suptitle(f"{card['model']}: per layer (0 = embeddings; out = the model's own output), 95% bootstrap CI",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _fmt(v) -> str:
    return "" if v is None or pd.isna(v) else f"{v:.1f}"


def _runs(n: int) -> str:
    return "" if n == 1 else f" (drawn {n} times)"


def _precision_words(precision: str | None) -> str:
    """``"bfloat16"`` -> "bfloat16 (autocast; pooling in float32)"; a card from before precisions were recorded
    ran in float32."""
    word = card_precision({"precision": precision})
    return "bfloat16 (autocast; pooling in float32)" if word == "bfloat16" else text(word)


def _list(values) -> str:
    """A card's list setting as page text: ``"ar, de, zh"``."""
    return text(", ".join(str(v) for v in values))


def card_markdown(card: dict, image: str | None = None) -> str:
    """A card as Markdown: its header, best layers, the papers' numbers beside it, the battery and the
    receipts. Every value read from the card (a file from anywhere) is page text
    (:func:`xalign.core.markup.text`, :func:`~xalign.core.markup.code`), never markup."""
    cfg = {k: "all" if v is None else (text(v) if isinstance(v, str) else v)  # None: all of it, by sample_size
           for k, v in card["config"].items()}
    corpus = f"{cfg['word_pair']} {cfg['word_corpus']} sentences"
    lines = [f"# Alignment card: {code(card['model'])}", "",
             (f"Revision {code(card['revision'])}; computed in {_precision_words(card.get('precision'))}; "
              f"layers: {_list(card['layers'])}"
             f" (0 = embedding layer{'; out = the model output' if 'out' in card['layers'] else ''}); "
             f"xalign {text(card['xalign_version'])}; this run {card['wall_time_s']:.0f} s (steps read from the "
             f"cache included); finished {text(finished_text(card.get('finished')))}."), ""]
    if image:
        lines += [f"![per-layer curves]({image})", ""]
    lines += ["## Best layer per measure", "",
              "| Measure | Level | Best layer | Score | 95% CI | Last layer | n |", "|---|---|---|---|---|---|---|"]
    for mid, r in card["measures"].items():
        last = r["layers"][-1]
        n = next(x["n"] for x in r["layers"] if x["layer"] == r["best_layer"])
        lines.append(f"| {text(r['title'])} | {text(r['level'])} | {text(r['best_layer'])} | "
                     f"**{_fmt(r['main_score'])}** | {_fmt(r['main_ci'][0])}-{_fmt(r['main_ci'][1])} | "
                     f"{_fmt(last['value'])} ({text(last['layer'])}) | {text(n)} |")
    for mid, why in card.get("not_available", {}).items():
        lines.append(f"| {MEASURES[mid][0]} | {MEASURES[mid][1]} | - | not available | {text(why)} | | |")
    lines += ["", layer_choice_markdown(card)] if layer_choice_markdown(card) else []  # older cards: none
    refs = paper_references()
    if not refs.empty:
        mids = [m for m in MEASURES if m in set(refs.measure)]
        lines += ["", "## Next to the papers' numbers", "",
                  ("Rows marked *(paper)* are the numbers the papers published for their models, with their own "
                   "protocols and samples (sources below): orientation, not a like-for-like comparison."), "",
                  "| Model | " + " | ".join(MEASURES[m][0] for m in mids) + " |", "|---" * (len(mids) + 1) + "|",
                  f"| **{text(card['model'])}** (ours, best layer) | "
                  + " | ".join(_fmt(card["measures"].get(m, {}).get("main_score")) for m in mids) + " |"]
        for model, sub in refs.groupby("model", sort=False):
            vals = dict(zip(sub.measure, sub.value))
            lines.append(f"| {text(model)} *(paper)* | " + " | ".join(_fmt(vals.get(m)) for m in mids) + " |")
        lines += ["", "Sources: " + "; ".join(f"{MEASURES[m][0]}: {src}" for m, src in
                                             refs.drop_duplicates("measure")[["measure", "source"]].values) + "."]
    lines += ["", "## Battery", "",
              (f"Tatoeba: {_list(cfg['tatoeba_langs'])}, {sample_size(cfg['tatoeba_n'], 'pairs')} each (CSLS k = {cfg['csls_k']}). "
              f"S_weak / S_strong: {cfg['word_n']} distinct dictionary word pairs{_runs(cfg.get('word_runs', 1))} from "
              f"{sample_size(cfg['word_sentences'], corpus, first=True)}. "
              f"BLI: {cfg['bli_queries']} MUSE test words per direction (en->{text(', en->'.join(cfg['bli_langs']))}), "
              f"candidates = the top {cfg['bli_vocab']} words plus the sample's translations, "
              f"{_list(cfg['bli_prune'])} pruned to its script. "
              f"BTSR: en-{cfg['btsr_lang']} set rebuilt from {cfg['btsr_per_source']} XNLI + Tatoeba pairs, "
              f"token-level word-alignment anchors, Procrustes, up to {cfg['btsr_candidates']} candidates "
              "(no reference row: Liu et al. report P@5 with 200k candidates only). "
              f"STS 2017 {_list(cfg['sts_tracks'])}: {sample_size(cfg['sts_n'], 'pairs', first=True)} each. XNLI Manual "
              f"{_list(cfg['xnli_langs'])}: {sample_size(cfg['xnli_n_train'], 'train')} / {sample_size(cfg['xnli_n_test'], 'test')} rows, "
              f"frozen [u, v, |u-v|, u*v] logistic regression (C = {cfg['xnli_C']}); zero-shot accuracy: trained "
              "on English, tested on the other languages; transfer rate = zero-shot / "
              f"translate-train-all x 100, mean over targets. Intervals: {cfg['n_boot']} bootstrap resamples of the items. "
              "The best layer is chosen on the same sample (slightly optimistic)."), "",
              "Data files: " + ", ".join(code(f"{d.get('dataset', '')}/{Path(str(d.get('file', ''))).name}")
                                         for d in card.get("data", [])) + "."]
    lines += ["", *receipts_markdown(card)]
    return "\n".join(lines) + "\n"


def markdown_to_html(md: str, title: str) -> str:
    """A self-contained HTML page (markdown-it when available, else the Markdown in <pre>)."""
    try:
        from markdown_it import MarkdownIt

        body = MarkdownIt("commonmark").enable("table").render(md)
    except ImportError:  # pragma: no cover
        body = f"<pre>{html.escape(md)}</pre>"
    style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;font-size:0.9em}td,th{border:1px solid #ccc;padding:3px 8px}"
             "img{max-width:100%}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{text(title)}</title>"
            f"<style>{style}</style></head><body>{body}</body></html>\n")


# ------------------------------------------------------------------ models side by side
def compare_table(root: str | Path | None = None) -> pd.DataFrame:
    """Models x measures: each card's main scores (best layer), plus a static layer-0 row per layered model."""
    rows = []
    for card in load_cards(root):
        best = {"model": card["model"], "row": "best layer"}
        best.update({mid: r["main_score"] for mid, r in card["measures"].items()})
        rows.append(best)
        if card.get("layered"):
            zero = {"model": card["model"], "row": "layer 0 (static embeddings)"}
            for mid, r in card["measures"].items():
                v = [x["value"] for x in r["layers"] if x["layer"] == "0"]
                zero[mid] = round(v[0], 2) if v else None
            rows.append(zero)
    cols = ["model", "row", *MEASURES]
    return pd.DataFrame(rows, columns=cols) if rows else pd.DataFrame(columns=cols)


def compare_markdown(root: str | Path | None = None) -> str:
    df = compare_table(root)
    if df.empty:
        return "No model cards yet: run `xalign card MODEL` first.\n"
    head = "| Model | Row | " + " | ".join(MEASURES[m][0] for m in MEASURES) + " |"
    lines = [head, "|" + "---|" * (len(MEASURES) + 2)]
    for _, r in df.iterrows():
        cells = [("n/a" if r[m] is None or pd.isna(r[m]) else f"{r[m]:.1f}") for m in MEASURES]
        lines.append(f"| {code(r['model'], table=True)} | {r['row']} | " + " | ".join(cells) + " |")
    missing = {c["model"]: c.get("not_available", {}) for c in load_cards(root) if c.get("not_available")}
    notes = [f"- {code(m)} has no {', '.join(MEASURES[k][0] for k in na)}: {WORDS_IN_CONTEXT}." for m, na in missing.items()]
    return "\n".join(lines) + "\n\n" + ("n/a: " + "\n".join(notes) + "\n" if notes else "")


def compare_text(root: str | Path | None = None) -> str:
    """:func:`compare_markdown` as a plain-text table for a terminal: one row per measure, one column per
    model and row (its best layer; layer 0 for a model with layers), aligned, "n/a" where a model has no
    such measure."""
    df = compare_table(root)
    if df.empty:
        return "No model cards yet: run `xalign card MODEL` first.\n"
    table = df.set_index(["model", "row"])[list(MEASURES)].T
    table.index = [MEASURES[m][0] for m in table.index]
    table.columns = pd.MultiIndex.from_tuples([(m, "best layer" if r == "best layer" else "layer 0")
                                               for m, r in table.columns])
    text = table.apply(pd.to_numeric, errors="coerce").to_string(na_rep="n/a", float_format=lambda v: f"{v:.1f}")
    missing = {c["model"]: c.get("not_available", {}) for c in load_cards(root) if c.get("not_available")}
    notes = [f"n/a: {m} has no {', '.join(MEASURES[k][0] for k in na)}: {WORDS_IN_CONTEXT}."
             for m, na in missing.items()]
    return text + "\n" + ("\n" + "\n".join(notes) + "\n" if notes else "")


#: cards committed with the project (the book shows them when no newer card of the model is on disk)
COMMITTED_CARDS = Path(__file__).resolve().parents[3] / "reference" / "cards"


def book_cards(root: str | Path | None = None, committed: Path | None = COMMITTED_CARDS) -> list[dict]:
    """The cards the book shows: every card on disk (``results/cards``), and each committed card
    (``reference/cards``) of a model with none on disk; sorted by model name."""
    cards = {c["model"]: c for c in (_read_cards(committed) if committed else [])}
    cards.update({c["model"]: c for c in load_cards(root)})
    return [cards[m] for m in sorted(cards)]


def _read_cards(folder: Path) -> list[dict]:
    return [read_card(p) for p in sorted(Path(folder).glob("*.json"))] if Path(folder).is_dir() else []


def compare_frame(cards: list[dict]) -> pd.DataFrame:
    """Models x measures with readable headers (measure titles and units), one row per model and row kind."""
    rows = []
    for card in cards:
        rows.append({"Model": card["model"], "Row": "best layer",
                     **{MEASURES[m][0]: r["main_score"] for m, r in card["measures"].items()}})
        if card.get("layered"):
            zero = {"Model": card["model"], "Row": "layer 0 (static embeddings)"}
            for m, r in card["measures"].items():
                v = [x["value"] for x in r["layers"] if x["layer"] == "0"]
                zero[MEASURES[m][0]] = v[0] if v else None
            rows.append(zero)
    cols = ["Model", "Row", *(MEASURES[m][0] for m in MEASURES)]
    return pd.DataFrame(rows, columns=cols)


def compare_page_markdown(cards: list[dict], anchors: bool = True) -> str:
    """The book's "Compare models" table: one row per measure, one column per model (its best layer, and
    its layer 0 for a model with layers), in its own scroll box (:func:`~xalign.book.display.table_html`)
    so that it fits the page; ``anchors``: a line above it links each model to its card below
    (:func:`cards_markdown`)."""
    if not cards:
        return "No model cards yet: run `xalign card MODEL` first.\n"
    from xalign.book.display import table_html
    from xalign.book.ledger import short_model

    wide = compare_frame(cards)
    measures = pd.DataFrame({"Measure (unit)": [f"{MEASURES[m][0]} ({MEASURES[m][2]})" for m in MEASURES]})
    best, static = measures.copy(), measures.copy()
    for _, r in wide.iterrows():  # one narrow table per row kind, so that every model's column fits the page
        (best if r["Row"] == "best layer" else static)[short_model(r["Model"])] = [r[MEASURES[m][0]] for m in MEASURES]
    out = table_html(best, digits=1)
    if static.shape[1] > 1:
        out += "\n\n<p>Layer 0 (the static embeddings, before any contextualisation) of the models with " \
               "layers:</p>\n\n" + table_html(static, digits=1)
    if anchors:
        links = ", ".join(f'<a href="#{card_label(c["model"])}">{text(c["model"])}</a>' for c in cards)
        out = f"<p>Each model's card, below: {links}. Each model's score at its best layer per measure:</p>\n\n{out}"
    missing = {c["model"]: c.get("not_available", {}) for c in cards if c.get("not_available")}
    notes = [f"- {code(m)} has no {', '.join(MEASURES[k][0] for k in na)}: {WORDS_IN_CONTEXT}." for m, na in missing.items()]
    return out + "\n\n" + ("– (no value): \n" + "\n".join(notes) + "\n" if notes else "")


def card_label(model: str, prefix: str = "card") -> str:
    """The label (and HTML id) of a model's card section: ``card-`` (or ``prefix-``) and the name in lower
    case, hyphenated; one per model, case-insensitively: a name that is not already lower-case and
    hyphenated (``Tiny``, ``org/Model``) or a long one gets a short hash of the full name
    (:func:`xalign.core.names.unique_name`), so ``Tiny`` and ``tiny`` never share a label."""
    body = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")
    return f"{prefix}-" + unique_name(model, body, body == model)


def fold_receipts(md: str) -> str:
    """A card section's receipts (the last section: one row per measure, then every data file's sha256)
    folded into a dropdown on the book's pages, so that four cards do not make a page of tens of thousands of
    pixels; the standalone card page keeps them open."""
    head = re.search(r"^#+ Receipts\n", md, flags=re.MULTILINE)
    if head is None:
        return md
    body = md[head.end():].strip("\n")
    return (md[:head.start()] + ":::{dropdown} Receipts: what produced each value, and the data files' sha256\n\n"
            + body + "\n:::\n")


#: the sections of a card that a book page folds (the card's curves and best layers stay open)
FOLDED_SECTIONS = ("Which layer is best", "Next to the papers' numbers", "Battery")


def fold_details(md: str) -> str:
    """A card's later sections (:data:`FOLDED_SECTIONS`: which layer wins the resamples, the papers' numbers,
    the battery) folded into one dropdown on the book's pages, their headings as bold lines (a heading
    cannot stand inside a dropdown); the curves and the best layer per measure stay open. Call after
    :func:`fold_receipts` (the receipts' dropdown goes inside this one)."""
    heads = [m for m in re.finditer(r"^(#+) (.+)\n", md, flags=re.MULTILINE) if m.group(2).strip() in FOLDED_SECTIONS]
    if not heads:
        return md
    start = heads[0].start()
    body = re.sub(r"^#+ (.+)\n", lambda m: f"**{m.group(1).strip()}**\n", md[start:], flags=re.MULTILINE)
    return (md[:start] + "::::{dropdown} More of this card: which layer wins the resamples, the papers' numbers, "
            "the battery and the receipts\n\n" + body.strip("\n") + "\n::::\n")


def cards_markdown(cards: list[dict], image_dir: Path, image_url: str, label_prefix: str = "card") -> str:
    """Every card as a section of a book page (``(card-<model>)=`` labels, or ``label_prefix``), with its
    per-layer curves drawn into ``image_dir`` and shown from ``image_url`` (the book's path to it)."""
    image_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for card in cards:
        name = slug(card["model"])
        plot_curves(card, image_dir / f"{name}.png")
        md = card_markdown(card, f"{image_url}/{name}.png")
        md = re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", md, flags=re.MULTILINE)  # one level down
        out += [f"({card_label(card['model'], label_prefix)})=", fold_details(fold_receipts(md))]
    return "\n".join(out)


#: full-size cards (``xalign card MODEL --profile full``) committed with the project, per-item outcomes left out
FULL_CARDS = COMMITTED_CARDS / "full"


def full_cards_markdown(image_dir: Path, image_url: str, folder: Path = FULL_CARDS, timings: Path | None = None, note=None) -> str:
    """The "Full-size card" page's generated part: each full card's sizes and cold / warm time (newest run in
    ``timings``, default :data:`xalign.book.pages.CARD_TIMINGS`), ``note(cards)``'s paragraph, the card."""
    from xalign.book.pages import CARD_TIMINGS, load_timings

    cards = _read_cards(folder)
    if not cards:
        return "No full-size card is committed yet (`xalign card MODEL --profile full`)."
    runs = load_timings(CARD_TIMINGS if timings is None else timings)
    out = []
    for card in cards:
        cfg = card["config"]
        n = {mid: max(x.get("n", 0) for x in r["layers"]) for mid, r in card["measures"].items()}
        full = [r for r in runs if r["model"] == card["model"] and r["profile"] == "full"]
        cold = [r for r in full if "cold" in r["seconds"]]
        warm = [r for r in full if "warm" in r["seconds"]]  # the newest of each (a warm-only run may follow)
        took = "" if not cold else (
            f", cold (empty cache) in {cold[-1]['seconds']['cold'] / 60:.0f} minutes on {text(cold[-1]['cores'])} CPU cores"
            + (f", warm in {warm[-1]['seconds']['warm']:.0f} seconds" if warm else "")
            + " (the Performance page has the timings)")
        out.append(
            f"{code(card['model'])} at benchmark sizes, computed in {_precision_words(card.get('precision'))}{took}: "
            f"Tatoeba in "
            f"{len(cfg['tatoeba_langs'])} languages with all their pairs ({n.get('tatoeba_nn_xx-en', 0):,} queries "
            f"per direction); XNLI Manual in {len(cfg['xnli_langs'])} languages, "
            f"{'all' if cfg['xnli_n_train'] is None else text(format(cfg['xnli_n_train'], ','))} training rows each and every test row ({n.get('xnli_zero_shot', 0):,} zero-shot test items); BLI on {text(format(cfg['bli_queries'], ','))} MUSE test words "
            f"per direction among the top {text(format(cfg['bli_vocab'], ','))} words; S_weak and S_strong over "
            f"{text(cfg['word_runs'])} "
            f"draws of {text(format(cfg['word_n'], ','))} word pairs; STS 2017 {_list(cfg['sts_tracks'])} in full "
            f"({n.get('sts', 0):,} pairs).")
    out += [note(cards)] if note else []
    return "\n\n".join(out) + "\n\n" + cards_markdown(cards, image_dir, image_url, label_prefix="full-card")
