"""`python -m inlong_proto` is the `inlong-proto` command."""
from inlong_proto.cli.commands import main

main(prog_name="inlong-proto")
