"""The command line, the top floor: ``inlong-proto`` (``main``), its output writers, the filter language, the
inspect view (hexview), the Wireshark plugin installer and each protocol's command group."""
from inlong_proto.cli.commands import main

__all__ = ["main"]
