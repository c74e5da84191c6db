"""`python -m inlong_proto` is the `inlong-proto` command."""
from .cli import main

main()
