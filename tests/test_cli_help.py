"""Every --help of the command line points at what a user of the installed package has: no README (a wheel
does not ship it), no source file, and each documentation page it names exists."""
from __future__ import annotations

import re
from pathlib import Path

import click

from inlong_proto.cli import main

ROOT = Path(__file__).resolve().parent.parent


def helps(command: click.Command, path: tuple[str, ...] = ("inlong-proto",)):
    """(command line, help text) of command and of every subcommand under it."""
    yield " ".join(path), command.get_help(click.Context(command, info_name=" ".join(path)))
    for name, sub in getattr(command, "commands", {}).items():
        yield from helps(sub, path + (name,))


def test_help_texts_name_only_what_an_installed_user_has():
    texts = dict(helps(main))
    assert "inlong-proto decode" in texts and "inlong-proto tubemq calls" in texts
    for command, text in texts.items():
        flat = " ".join(text.split())  # click wraps the text, a path included
        assert "README" not in flat, command
        assert not re.search(r"\b[\w/]+\.py\b", flat), command
        for page in re.findall(r"docs/[\w/.-]+?\.md", flat):
            assert (ROOT / page).is_file(), f"{command}: {page}"
    assert "docs/how-to/command-line.md" in " ".join(texts["inlong-proto decode"].split())
