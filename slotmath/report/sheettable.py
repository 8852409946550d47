"""Titled tables of a PAR sheet and the number formats they are read in.

A :class:`Table` keeps raw values (numbers stay numbers) with a format key
per column (or per row, for tables of figures); the same keys give the text
on the page (:func:`format_value`) and the Excel number format in the
workbook (:data:`FORMATS`).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import pandas as pd

from slotmath.io.terminal import terminal_text
from slotmath.rules.result import fraction_short

# format key -> (Excel number format, text formatter)
FORMATS: dict[str, tuple[str, Callable]] = {
    "pct": ("0.0000%", lambda v: f"{v:.4%}"),
    "pct6": ("0.000000%", lambda v: f"{v:.6%}"),
    "pct2": ("0.00%", lambda v: f"{v:.2%}"),
    # a probability as a percentage, small ones in scientific notation
    "pctp": (
        "[=0]0.0000%;[<0.0001]0.000E+00;0.0000%",
        lambda v: f"{v:.4%}" if v == 0 or v >= 1e-4 else f"{v:.3e}",
    ),
    "prob": ("0.000000E+00", lambda v: f"{v:.6e}"),
    "int": ("#,##0", lambda v: f"{int(v):,}"),
    # "1 in N" odds: scientific from 10 million on (1.55e17, not 18 digits)
    "odds": ("[<10000000]#,##0.00;0.00E+00", lambda v: _odds(v)),
    "z": ("+0.00;-0.00;0.00", lambda v: f"{v:+.2f}"),
    "money": ("#,##0.00", lambda v: f"{v:,.2f}"),
    "num": ("#,##0.000000", lambda v: f"{v:,.6f}"),
    "x": ("#,##0.00##", lambda v: f"{v:,.4f}".rstrip("0").rstrip(".")),
    "general": ("General", lambda v: f"{v:,.6g}" if isinstance(v, float) else f"{v:,}"),
    "text": ("@", str),
}


def _odds(v: float) -> str:
    if abs(v) >= 1e7:
        mant, exp = f"{v:.2e}".split("e")
        return f"{mant}e{int(exp)}"
    return f"{v:,.2f}"


#: Integers beyond this are kept as text in a workbook (a double would round them).
EXACT_INT_LIMIT = 2**53


@dataclass
class Table:
    """A titled table of a PAR sheet.

    Attributes
    ----------
    title : str
    frame : DataFrame
        Raw values (numbers stay numbers).
    formats : dict
        Column -> format key of :data:`FORMATS`; other columns are inferred.
    row_formats : list, optional
        Format key per row for every column but the first (figure tables).
    note : str
        One line printed under the table.
    html : bool
        Shown on the page; False keeps it to the workbook (long tables).
    total_row : bool
        The last row is a total (bold).
    figures : list
        (caption, builder) of figures shown right after the table.
    """

    title: str
    frame: pd.DataFrame
    formats: dict = field(default_factory=dict)
    row_formats: list | None = None
    note: str = ""
    html: bool = True
    total_row: bool = False
    figures: list = field(default_factory=list)

    def format_key(self, column: str, row: int) -> str:
        if column in self.formats:
            return self.formats[column]
        if self.row_formats is not None and column != self.frame.columns[0]:
            return self.row_formats[row]
        kind = self.frame[column].dtype.kind
        return {"i": "int", "u": "int", "f": "general"}.get(kind, "auto")

    def text_value(self, column: str, row: int) -> str:
        return format_value(self.frame[column].iat[row], self.format_key(column, row))

    def is_number(self, column: str, row: int) -> bool:
        v = excel_value(self.frame[column].iat[row])
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    def css_classes(self) -> str:
        """CSS classes of the table: ``par-table``, ``par-figures`` for a
        (figure, value) table, ``par-small`` when it prints on one page
        (:data:`SMALL_TABLE_ROWS`)."""
        classes = ["par-table"]
        if self.row_formats is not None:
            classes.append("par-figures")
        if len(self.frame) <= SMALL_TABLE_ROWS:
            classes.append("par-small")
        return " ".join(classes)

    def to_html(self, uid: str) -> str:
        """The table as HTML (pandas Styler), numbers formatted for reading."""
        shown = pd.DataFrame(
            {
                c: [unbroken(plain_text(self.text_value(c, i))) for i in range(len(self.frame))]
                for c in self.frame.columns
            }
        )
        shown.columns = [plain_text(c) for c in shown.columns]
        classes = pd.DataFrame(
            [
                [cell_class(self.is_number(c, i), shown[c].iat[i]) for c in shown.columns]
                for i in range(len(shown))
            ],
            columns=shown.columns,
            index=shown.index,
        )
        if self.total_row and len(shown):
            classes.iloc[-1] = [f"{v} par-total-cell".strip() for v in classes.iloc[-1]]
        styler = (
            shown.style.format(escape="html")
            .format_index(escape="html", axis=1)
            .hide(axis="index")
            .set_caption(escape(self.title))
            .set_table_attributes(f'class="{self.css_classes()}"')
            .set_td_classes(classes)
            .set_uuid(uid)
        )
        styler.cell_ids = False
        if self.total_row and len(shown):
            styler = styler.set_table_styles(
                [
                    {
                        "selector": "td.par-total-cell",
                        "props": "font-weight: 600; border-top: 2px solid #b8c3cf;",
                    }
                ]
            )
        out = styler.to_html()
        if self.note:
            out += f'<p class="par-note">{escape(self.note)}</p>'
        return out


#: Text cells a line must not break: an exact fraction ``p/q``, or an
#: abbreviated one (``exact: N-digit fraction, ...``); digit groups of the
#: appendix break only between groups.
EXACT_TEXT = re.compile(r"-?[0-9]+/[0-9]+")
#: Longest one-word cell kept on one line (a word such as "total" or a
#: SHA-256 prefix is never broken; longer ones may wrap anywhere).
SHORT_WORD = 24
DIGIT_GROUPS = re.compile(r"[0-9]{1,10}( [0-9]{1,10})+|(exact: )?[0-9]+-digit fraction, .*")
#: Most rows of a table printed whole on one page (``par-small``: a page
#: break never splits it; a longer table repeats its header on each page).
SMALL_TABLE_ROWS = 30


#: "SHA-256" with a non-breaking hyphen (U+2011): a printed line never ends on "SHA-".
UNBROKEN_SHA = "SHA\u2011256"


def unbroken(text: str) -> str:
    """``text`` for a page cell: "SHA-256" with a non-breaking hyphen."""
    return text.replace("SHA-256", UNBROKEN_SHA)


def cell_class(number: bool, text) -> str:
    """CSS class of a table cell: ``num`` (a number), ``exact`` (an exact
    fraction or a short word, never broken), ``digits`` (digit groups or an abbreviated
    fraction, broken only at spaces) or none."""
    if number:
        return "num"
    text = str(text)
    if EXACT_TEXT.fullmatch(text) or (0 < len(text) <= SHORT_WORD and " " not in text):
        return "exact"
    return "digits" if DIGIT_GROUPS.fullmatch(text) else ""


def escape(text) -> str:
    """``text`` as HTML text or attribute value: ``& < > " '`` escaped (a
    game file's names are untrusted: ``" onload="...`` stays inside its
    attribute), control characters shown as visible escapes."""
    return html.escape(plain_text(text), quote=True)


def plain_text(text) -> str:
    """``text`` with control and bidi characters shown escaped (see
    :func:`slotmath.io.terminal.terminal_text`): for a page, a workbook cell or a figure."""
    return terminal_text(text)


def format_value(v, key: str) -> str:
    """``v`` as text with format ``key``."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, Fraction):
        v = float(v)
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isinf(v):
        return "never" if v > 0 else "-inf"
    if isinstance(v, (int, float)) and key != "text":
        text = FORMATS["general" if key == "auto" else key][1](v)
        return text[1:] if is_negative_zero(text) else text
    return str(v)


def is_negative_zero(text: str) -> bool:
    """Whether ``text`` is a number shown as a signed zero ("-0.000000%"):
    round-off below the format's last digit, shown as 0."""
    return text.startswith("-") and re.search(r"[1-9]", re.split(r"[eE]", text)[0]) is None


def excel_value(v):
    """A cell value for the workbook: numbers as numbers (exact integers
    beyond 2**53 as text), infinities as 'never', Fractions as floats."""
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, Fraction):
        return float(v)
    if isinstance(v, int):
        return v if abs(v) < EXACT_INT_LIMIT else str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            return None  # blank: a workbook holds no text in a numeric column
        return float(f"{v:.15g}")  # 15 significant digits, as Excel keeps: reproducible
    return str(v)


def exact_str(value, lead: str = "exact: ") -> str:
    """An exact value as text: ``"p/q"``, ``"n"`` for integers, "" for floats
    (``lead`` starts an abbreviated fraction, see :func:`fraction_short`)."""
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else fraction_short(value, lead=lead)
    return ""


def figure_table(title: str, rows: list, note: str = "", columns=("figure", "value")) -> Table:
    """A (figure, value..., format) list as a :class:`Table`."""
    frame = pd.DataFrame([r[:-1] for r in rows], columns=list(columns))
    return Table(title, frame, row_formats=[r[-1] for r in rows], note=note)


@dataclass
class Section:
    """A section of the sheet: tables, figures (caption, builder) and text."""

    key: str
    title: str
    sheet: str
    tables: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    text: str = ""
    figures_first: bool = False


def label(key) -> str:
    """A JSON key as words: ``one_in`` -> ``1 in N``, ``lockit_base_game`` ->
    ``lock-it base game`` (see :func:`human`)."""
    text = str(key)
    return WORDS.get(text.replace("_", " ").lower(), human(text)) if text.islower() else human(text)


#: Code words and the words a reader sees instead.
WORDS = {
    "one in": "1 in N",
    "lockit": "lock-it",
    "rtp": "RTP",
    "sd": "SD",
    "vi": "VI",
    "p": "probability",
    "q": "quantile",
    "per round": "per round",
    "hit probability": "hit probability",
    "by choice": "RTP by choice",
    "mean award": "mean award",
    "p next within window": "probability the next win falls within the window",
}
_CODE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\blockit\b")


def human(text) -> str:
    """Code names in ``text`` as words: lower-case ``snake_case`` names get
    spaces (``expected_turnover_between_wins`` -> ``expected turnover
    between wins``) and known words their reading (:data:`WORDS`); names
    with capitals (symbols such as ``WILD_3``) are kept."""
    text = str(text)

    def words(m):
        name = m.group(0)
        if any(ch.isupper() for ch in name):
            return name
        spaced = name.replace("_", " ")
        if spaced in WORDS:
            return WORDS[spaced]
        return " ".join(
            WORDS.get(w, w) if w in ("lockit", "rtp", "sd", "vi") else w for w in spaced.split(" ")
        )

    text = _CODE.sub(words, text)
    return re.sub(r"\(policy ([^)]+)\)", r"(player always chooses \1)", text)
