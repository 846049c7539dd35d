"""The book's one interval style (xalign.measures.interval_text), used by every page."""

import math

from xalign.measures import interval_text as IT


def test_one_style_for_values_changes_and_prose():
    assert IT.with_interval(45.31, 40.12, 50.19) == "45.3 [40.1, 50.2]"
    assert IT.with_interval(-3.3, -6.3, -0.3, signed=True) == "-3.3 [-6.3, -0.3]"
    assert IT.interval(0.5, 1.7, signed=True) == "[+0.5, +1.7]"
    assert IT.ci(-0.3, 1.1, signed=True) == "95% CI [-0.3, +1.1]"
    assert IT.number(-0.04) == "0.0" and IT.number(-0.04, signed=True) == "0.0"  # never "-0.0" or "+0.0"


def test_missing_ends_are_said_not_printed_as_nan():
    assert IT.interval(None, 1.0) is None and IT.interval(math.nan, 1.0) is None
    assert IT.with_interval(45.0, None, None) == "45.0" and IT.with_interval(None, 1, 2) is None
    assert IT.ci(math.inf, 2.0) == "no interval"


def test_no_page_module_formats_a_95_percent_interval_by_hand():
    # "95% CI a to b", "a – b" and "a–b" beside a CI were the old styles: every one goes through interval_text
    import pathlib
    import re

    root = pathlib.Path(IT.__file__).parents[1]
    hand = re.compile(r'95% CI \{[^}]+\}( to |–|-)\{|CI \{[^}]*:\.1f\}–')
    offenders = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py")
                 for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if hand.search(line)]
    assert offenders == []
