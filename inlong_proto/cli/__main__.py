"""`python -m inlong_proto.cli` is the `inlong-proto` command, as `python -m inlong_proto` is."""
from inlong_proto.cli.commands import main

main(prog_name="inlong-proto")
