"""The command line, the top floor: ``inlong-proto`` (``main``), its output writers, the filter language, the
inspect view (hexview), the Wireshark plugin installer and each protocol's command group.

The protocol groups are added to ``main`` here rather than in commands.py, so that the groups may use the
commands' helpers (``chunks``, ``with_file``) without an import cycle."""
from importlib import import_module

from inlong_proto.cli.commands import main

# each module's group (or command) of its name
for _name in ("broadcast", "corpus", "dataproxy", "eventmesh", "specs", "tck", "tubemq", "wireshark"):
    main.add_command(getattr(import_module(f"inlong_proto.cli.{_name}"), _name))
for _name in ("audit", "replay"):  # commands of inlong_proto.cli.audit (issue 28)
    main.add_command(getattr(import_module("inlong_proto.cli.audit"), _name))

__all__ = ["main"]
