"""A card on the book's Compare models page folds its receipts (every measure's settings and the data files'
sha256) into a dropdown; the standalone card page keeps them open (#44: no page of tens of thousands of px)."""

import re

from xalign.book.card_page import book_cards, card_markdown, cards_markdown, fold_receipts


def test_the_receipts_section_is_folded_and_nothing_else_moves():
    md = "### Card\n\nScores.\n\n### Receipts\n\nWhat produced each value.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    folded = fold_receipts(md)
    assert folded.startswith("### Card\n\nScores.\n\n:::{dropdown} Receipts")
    assert "| a | b |\n|---|---|\n| 1 | 2 |\n:::\n" in folded and "### Receipts" not in folded
    assert fold_receipts("### Card\n\nno receipts\n") == "### Card\n\nno receipts\n"


def test_the_book_folds_every_card_s_receipts_and_the_card_page_does_not(tmp_path):
    cards = book_cards()[:2]
    book = cards_markdown(cards, tmp_path, "/img")
    assert book.count(":::{dropdown} Receipts") == len(cards) and not re.search(r"^#+ Receipts$", book, re.MULTILINE)
    assert re.search(r"^## Receipts$", card_markdown(cards[0], "x.png"), re.MULTILINE)
