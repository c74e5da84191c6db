"""`inlong-proto broadcast ...` commands."""
import click


@click.group()
def broadcast():
    """Reference endpoints of the simple broadcasting protocol."""
