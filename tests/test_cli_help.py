"""Every command's --help: a description of its own (plain text, no
docstring markup) and a help text for every argument and option."""

from __future__ import annotations

import argparse

import pytest

from slotmath.cli import CORE_COMMANDS, EXTRA_COMMANDS, build_parser


def commands(name: str) -> dict:
    """``{command: its parser}`` as ``slotmath NAME ...`` builds them."""
    (action,) = [a for a in build_parser([name])._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(set(CORE_COMMANDS) | set(EXTRA_COMMANDS)))
def test_every_option_has_help(name):
    parser = commands(name)[name]
    assert parser.description and "``" not in parser.description, parser.description
    missing = [
        a.option_strings or a.dest
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction) and (not a.help or a.help == argparse.SUPPRESS)
    ]
    assert not missing, missing


def test_top_level_description_is_plain_text():
    description = build_parser(["--help"]).description
    assert description and "``" not in description
