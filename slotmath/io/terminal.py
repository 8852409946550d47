"""Text from a game file made safe to print on a terminal.

A title, label or version is untrusted text: an escape sequence (``ESC``)
could move the cursor or rewrite the screen, and a bidirectional override
(U+202E) could make a line read differently from what it holds.
:func:`terminal_text` shows every such character as a visible escape.
"""

from __future__ import annotations

import unicodedata

#: Unicode categories shown escaped: controls, format characters (the bidi
#: overrides and isolates, zero-width characters), surrogates, private use,
#: unassigned, and the line and paragraph separators.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def escaped_char(ch: str) -> str:
    """``ch`` as a visible escape: ``\\x1b``, ``\\u202e``, ``\\U000e0001``."""
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def terminal_text(text, lines: bool = False) -> str:
    """``text`` with every control, format (bidi) and separator character
    shown escaped (``"\\x1b[2J"`` for ESC [2J, ``"\\u202e"`` for RIGHT-TO-LEFT
    OVERRIDE); with ``lines`` the newlines of a multi-line text are kept."""
    return "".join(
        escaped_char(ch)
        if unicodedata.category(ch) in HIDDEN_CATEGORIES and not (lines and ch == "\n")
        else ch
        for ch in str(text)
    )
