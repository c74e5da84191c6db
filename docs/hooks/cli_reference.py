"""MkDocs hook: the command-line reference page is the CLI's own --help, rendered at build time.

A page holding the marker `<!-- inlong-proto --help -->` gets, in its place, one section per command and
subcommand of `inlong-proto` (the click group inlong_proto.cli.commands.main), each with its help text as click prints
it, so that the reference cannot drift from the code.
"""
from __future__ import annotations

import click

MARKER = "<!-- inlong-proto --help -->"


def _sections(command: click.Command, parent: click.Context | None, name: str) -> list[str]:
    context = click.Context(command, info_name=name, parent=parent, terminal_width=100, max_content_width=100)
    path = context.command_path
    out = [f"{'#' * min(2 + path.count(' '), 4)} `{path}`", "", "```text", command.get_help(context), "```", ""]
    if isinstance(command, click.Group):
        for sub in command.list_commands(context):
            out += _sections(command.get_command(context, sub), context, sub)
    return out


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER not in markdown:
        return markdown
    from inlong_proto.cli.commands import main

    return markdown.replace(MARKER, "\n".join(_sections(main, None, "inlong-proto")))
