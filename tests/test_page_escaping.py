"""Nothing a name carries runs in the book: hostile model names through every page generator.

Each generator gets names that hold a script, an image with an event handler, a backtick and a blank
line (out of a code span and its paragraph), a ``{raw}`` role, a ``javascript:`` link, a pipe (out of a
table cell) and a MyST ``{raw}`` directive (:data:`live_markup.HOSTILE`); its output, rendered the way
the book renders it (MyST with its extensions, raw HTML passed through), must hold nothing live
(:func:`live_markup.live`): no ``<script>``, no ``on...=`` handler, no ``javascript:`` URL, no raw role.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from live_markup import HOSTILE, live, live_html
from xalign.core.markup import code, inert, text

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
NORMAL = ["multilingual-e5-small", "sentence-transformers/LaBSE", "intfloat/multilingual-e5-small", "bert_base-v2.1"]


def _rendered_text(markdown: str) -> str:
    """The text a reader sees of one paragraph of Markdown (tags dropped, references decoded)."""
    import html
    import re

    from markdown_it import MarkdownIt

    return html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").enable("table").render(markdown))).strip()


# ------------------------------------------------------------------ the one function
@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_value_is_text_in_every_context(name):
    words = " ".join(name.split())  # the value's characters, its line breaks as spaces
    contexts = [f"Model {text(name)} here.", f"# Card: {code(name)}", f"**{text(name)}** (ours)",
                f"| Model | Score |\n|---|---|\n| {text(name)} | {code(name, table=True)} |\n",
                f'<div class="xa-table"><table><tr><td>{text(name)}</td></tr></table></div>\n\nafter']
    for md in contexts:
        assert live(md) == [], md
    # the reader sees the characters the value holds, on one line
    for md in (f"Model {text(name)} here.", f"Model {code(name)} here."):
        assert " ".join(_rendered_text(md).split()) == f"Model {words} here.", md


@pytest.mark.parametrize("name", NORMAL)
def test_a_normal_name_is_unchanged(name):
    assert text(name) == name
    assert code(name) == f"`{name}`" == code(name, table=True)


def test_control_characters_and_odd_values():
    assert text("a\r\nb\tc\x00d\u2028e") == "a b c d e"
    assert text(None) == "" and code("") == "" and text(12.5) == "12.5"
    assert code("``x`") == "``` ``x` ```"  # the fence outgrows any run; a space inside each end
    assert code("a|b", table=True) == "`a\\|b`"


@pytest.mark.parametrize("name", HOSTILE)
def test_inert_prose_keeps_its_markup_and_loses_what_a_value_could_start(name):
    prose = f"- **Table I.** At {name}'s best layer, `<unk>` counts.\n- Second, ``a`b`` and *this*."
    assert live(inert(prose)) == []
    normal = "- **Table I.** At e5's best layer (S_weak 95.8%), `<unk>` counts.\n1. Second, ``a`b`` and *this*."
    assert inert(normal) == normal  # the chapters' own prose: unchanged


# ------------------------------------------------------------------ generated pages
def _hostile_cards() -> list[dict]:
    """The committed e5 card once per hostile name, with its other outside values made hostile too."""
    base = json.loads((REFERENCE / "cards" / "multilingual-e5-small.json").read_text(encoding="utf-8"))
    cards = []
    for i, name in enumerate(HOSTILE):
        card = json.loads(json.dumps(base))
        card["model"] = name
        card["revision"] = HOSTILE[(i + 1) % len(HOSTILE)]
        card["precision"] = HOSTILE[(i + 2) % len(HOSTILE)]
        card["config"]["tatoeba_langs"] = [*card["config"]["tatoeba_langs"], HOSTILE[(i + 3) % len(HOSTILE)]]
        first = next(iter(card["measures"].values()))
        first["title"] = HOSTILE[(i + 4) % len(HOSTILE)]
        if first.get("receipt"):
            first["receipt"]["prefix"] = HOSTILE[(i + 5) % len(HOSTILE)]
            first["receipt"]["data"] = [{**d, "file": name} for d in first["receipt"]["data"]]
        card["data"] = [{**d, "dataset": name} for d in card.get("data", [])]
        cards.append(card)
    return cards


def test_card_pages_show_hostile_names_as_text(tmp_path):
    from xalign.book.card_page import (
        card_markdown,
        cards_markdown,
        compare_markdown,
        compare_page_markdown,
        full_cards_markdown,
        markdown_to_html,
        save_card,
    )
    from xalign.book.model_compare import layer_choice_markdown, paired_markdown, paired_page_markdown

    cards = _hostile_cards()
    for card in cards:
        md = card_markdown(card, "curves.png")
        assert live(md) == [], card["model"]
        assert live(layer_choice_markdown(card)) == []
        assert live_html(markdown_to_html(md, f"xalign card: {card['model']}")) == []
    # the page `xalign card` writes (card.html), the book's Compare models page and the CLI's tables
    page = save_card(cards[1], tmp_path / "cards")
    assert live_html(page.read_text(encoding="utf-8")) == []
    assert live(compare_page_markdown(cards)) == []
    assert live(paired_page_markdown(cards[:3])) == []
    assert live(cards_markdown(cards[:3], tmp_path / "img", "/img")) == []
    for card in cards:
        (tmp_path / "cards" / f"{abs(hash(card['model']))}.json").write_text(json.dumps(card), encoding="utf-8")
    assert live(compare_markdown(tmp_path / "cards")) == []
    assert live(paired_markdown(cards[:3])) == []
    # the full-size card page
    full = tmp_path / "full"
    full.mkdir()
    (full / "x.json").write_text(json.dumps(cards[0]), encoding="utf-8")
    assert live(full_cards_markdown(tmp_path / "full_img", "/full_img", folder=full, timings=tmp_path / "none.json")) == []


def test_a_normal_card_page_is_unchanged_by_the_escaping():
    from xalign.book.card_page import card_markdown

    card = json.loads((REFERENCE / "cards" / "multilingual-e5-small.json").read_text(encoding="utf-8"))
    md = card_markdown(card, "curves.png")
    assert md.startswith("# Alignment card: `multilingual-e5-small`\n")
    assert "| **multilingual-e5-small** (ours, best layer) |" in md
    assert "&#" not in md.split("## Receipts")[0].replace("&#124;", "")  # no reference where none is needed


def _hostile_results(root: Path, headline: str | None = None) -> None:
    """Each chapter's committed reference result under ``root`` twice, its model named by two hostile names
    (the ledger's "also run with" line shows the second), its headline made by its model's name."""
    for path in sorted(REFERENCE.glob("0[1-5]_*.json")):
        res = json.loads(path.read_text(encoding="utf-8"))
        folder = root / res["chapter"] / res["profile"]
        folder.mkdir(parents=True, exist_ok=True)
        for i, name in enumerate((HOSTILE[1], HOSTILE[0])):
            out = {**res, "model": name, "finished": res["finished"][:-1] + str(i),
                   "headline": headline if headline is not None else res["headline"]}
            (folder / f"m{i}.json").write_text(json.dumps(out), encoding="utf-8")


@pytest.mark.parametrize("headline", [None, HOSTILE[3], HOSTILE[6]])
def test_the_ledger_and_the_landing_page_show_hostile_names_as_text(tmp_path, headline):
    from xalign.book.landing import landing_markdown
    from xalign.book.status import status_markdown

    _hostile_results(tmp_path, headline)
    landing = landing_markdown("default", root=tmp_path)
    assert "**What our run shows.**" in landing and live(landing) == []
    ledger = status_markdown("default", root=tmp_path, labels=set())
    assert "Model: **" in ledger and live(ledger) == []


def _frame(chapter: str, key: str) -> pd.DataFrame:
    res = json.loads((REFERENCE / f"{chapter}.json").read_text(encoding="utf-8"))
    return pd.DataFrame(res["tables"][key]["rows"])


@pytest.mark.parametrize("name", HOSTILE)
def test_the_chapters_prose_shows_hostile_names_as_text(name):
    """Each chapter's report functions on its committed reference tables, the model's name replaced."""
    from xalign.papers.calibrated2023 import evidence as E
    from xalign.papers.calibrated2023.seed_spread import SeedSpread, spread_note
    from xalign.papers.gaschi2022 import report as G
    from xalign.papers.liu2020 import report as LR
    from xalign.papers.nyholm2020 import findings as F
    from xalign.papers.wickramasinghe import findings as B

    ch1 = {k: _frame("01_weak_strong_alignment", k) for k in ("table1", "table2", "table3", "table4")}
    t3_bli = _frame("04_bli_pruning_stemming", "table3").rename(columns={"ours": "value"})
    fig8 = pd.DataFrame({"layer": [12, 12], "run": [0, 0], "value": [0.5, 0.6], "input": ["words", "masked"]})
    out = {
        "ch01 headline": G.headline(ch1["table3"], name, "mBERT", 5),
        "ch01 evidence": G.evidence(ch1["table1"], ch1["table2"], ch1["table3"], ch1["table4"], fig8, name,
                                    "mBERT", 5),
        "ch01 masked": G.masked_sentence(fig8, name),
        "ch02 model": LR.model_words(name),
        "ch03 counterparts": E.counterparts_sentence({name: "LaBSE"}, [name]),
        "ch03 seed spread": spread_note({name: SeedSpread(model=name, reason=name)}),
        "ch04 headline": B.headline(t3_bli, name),
        "ch05 headline": F.headline(_frame("05_feature_based_transfer", "table4"), name),
        "ch05 phrase": F.model_phrase(name),
    }
    for what, md in out.items():
        assert md and live(md) == [], (what, md)


def test_tables_show_hostile_cells_as_text():
    from xalign.book.display import table_html

    frame = pd.DataFrame({name: [name, 1.5] for name in HOSTILE})
    html = table_html(frame, caption=HOSTILE[0])
    assert live_html(html) == []
    # inside a generated Markdown page (Compare models, Performance): no cell ends the HTML block
    assert live(f"Before.\n\n{html}\n\nAfter.") == []
    assert "\n" not in html


@pytest.mark.parametrize("name", HOSTILE)
def test_the_mteb_comparison_shows_hostile_names_as_text(name, tmp_path):
    from xalign.book.mteb_compare import mteb_comparison_markdown, subset_of

    card = _hostile_cards()[HOSTILE.index(name)]
    score = {"main_score": 0.9, "f1": 0.9, "accuracy": 0.92}
    mteb = {"path": str(tmp_path / "Tatoeba.json"), "split": name, "mteb_version": name, "dataset_revision": name,
            "task_name": "Tatoeba", "subsets": {subset_of(x): score for x in card["config"]["tatoeba_langs"][:-1]}}
    assert live(mteb_comparison_markdown(card, mteb)) == []


def test_the_hostile_names_are_live_without_the_escaping():
    """The check can fail: each hostile name, put into a page as it is, is live there."""
    for name in HOSTILE:
        page = f"# Alignment card: `{name}`\n\n| Model |\n|---|\n| **{name}** (ours) |\n\nModel {name}."
        assert live(page) or "javascript:" in name, name
    assert live_html('<a href="javascript:alert(3)">x</a>') and live_html("<svg onload=alert(1)>")


@pytest.mark.parametrize("name", HOSTILE)
def test_a_chapter_s_run_it_section_shows_a_hostile_profile_as_text(name):
    from xalign.book.publish import run_it_markdown

    md = run_it_markdown("01_weak_strong_alignment", run={"profile": name, "wall_time_s": 90.0}, public=False)
    assert "This page was built from a run of the" in md and live(md) == []
