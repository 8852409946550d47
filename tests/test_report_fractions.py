"""Long exact fractions on the PAR sheet: abbreviated as 'exact: N-digit
fraction, first digits, SHA-256 prefix', written once in full in the
appendix (and in par.json), never broken across lines."""

from __future__ import annotations

import re
from fractions import Fraction as F
from pathlib import Path

import pandas as pd
import pytest

from slotmath.report.sheet import par_sheet
from slotmath.rules.result import decimal_digits, fraction_digest, fraction_short

EXAMPLES = Path(__file__).resolve().parents[1] / "slotmath" / "examples"


def test_abbreviation_worked_by_hand():
    # 1/3 to 20 significant digits, truncated; 1/8 ends; a short fraction stays p/q
    assert decimal_digits(F(1, 3)) == "0." + "3" * 20 + "…"
    assert decimal_digits(F(1, 8)) == "0.125"
    assert decimal_digits(F(-22, 7), 6) == "-3.14285…"
    assert fraction_short(F(561, 496)) == "561/496"
    big = F(10**80 + 7, 3**170)  # 81 + 82 digits
    assert fraction_short(big) == (
        f"exact: 163-digit fraction, {decimal_digits(big)}, SHA-256 {fraction_digest(big)[:16]}"
    )


@pytest.fixture(scope="module")
def long_sheet():
    # the hold-and-spin example's exact RTP has 363 characters as p/q
    return par_sheet(str(EXAMPLES / "hold_and_spin"), level=1, spins=0)


def test_long_fractions_abbreviated_once_in_full(long_sheet):
    from report_checks import fraction_problems

    template = Path(__file__).resolve().parents[1] / "slotmath/report/templates/par_sheet/index.html.j2"
    style = re.search(r"<style.*?</style>", template.read_text(), re.S).group(0)
    assert re.search(r"td\.exact[^{]*\{[^}]*white-space: nowrap", style)
    html = style + "\n".join(long_sheet.section_html(k) for k in long_sheet.sections)
    assert fraction_problems(html) == []
    assert "Appendix: exact fractions in full" in html
    rtp = long_sheet.par.rtp
    assert f"SHA\u2011256 {fraction_digest(rtp)[:16]}" in html  # a non-breaking hyphen
    assert long_sheet.par.to_dict()["rtp_exact"] == f"{rtp.numerator}/{rtp.denominator}"
    # the check can fail: a long fraction written out, a fraction cell that may break
    assert fraction_problems(f"<p>{rtp.numerator}/{rtp.denominator}</p>")
    assert fraction_problems('<table><tr><td class="">1/3</td></tr></table>')


def test_rtp_exact_says_exact_once():
    # the label "RTP exact" says it: its abbreviated value does not repeat it
    from report_checks import fraction_problems

    from slotmath.rules.result import fraction_display, summary_text

    big = F(10**80 + 7, 3**170)
    shown = fraction_display(big)
    assert shown == f"163-digit fraction, {decimal_digits(big)}, SHA-256 {fraction_digest(big)[:16]}"
    text = summary_text(pd.DataFrame({"figure": ["RTP exact"], "value": [shown]}))
    assert "exact  exact" not in text and text.count("exact") == 1
    assert fraction_problems(f"<td>RTP exact</td><td>exact: {shown}</td>") != []
    # a mode's "RTP exact" row too (exact_str with no lead); an integer stays "n"
    from slotmath.report.sheettable import exact_str

    assert exact_str(big, lead="") == shown and exact_str(F(5)) == "5"


def test_sha_256_never_ends_a_printed_line():
    # a page cell writes SHA-256 with a non-breaking hyphen, and an
    # abbreviated fraction (with or without its "exact: ") breaks only at spaces
    from slotmath.report.sheettable import Table, cell_class

    big = F(10**80 + 7, 3**170)
    shown = fraction_short(big, lead="")
    assert cell_class(False, shown) == "digits"
    html = Table("t", pd.DataFrame({"figure": ["RTP exact"], "value": [shown]})).to_html("t")
    assert "SHA\u2011256" in html and "SHA-256" not in html
    assert 'class="par-table par-small"' in html
