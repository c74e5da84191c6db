"""Injected faults, for tests with a known truth (the audit, issue 28): a reference server told to drop, fail,
close on or delay chosen requests, so that what the wire shows is known beforehand.

A plan is {n: what} for the n-th request of the kind a server counts (its messages sent: DataProxy data
requests, TubeMQ sendMessageP2B, EventMesh TCP sends, EventMesh HTTP sends), from 1, all connections
together. what is "drop" (no answer), "fail" (the protocol's failure answer, as upstream's server gives it
when it cannot store the message), "close" (the connection is closed without an answer) or a number of
seconds to delay the answer by. On the command line the same plan is `--faults 2=drop,5=fail,7=0.3`.
"""
from __future__ import annotations

import click

__all__ = ["FAULT_TEXT", "Faults", "faults_option", "parse_faults"]

FAULT_TEXT = "fault injected"  # what a failure answer says, where the protocol carries a message
KINDS = ("drop", "fail", "close")


def _checked(number, what) -> tuple[int, str | float]:
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"fault {number!r}: requests are numbered from 1")
    if what in KINDS:
        return number, what
    if isinstance(what, bool) or not isinstance(what, (int, float)) or not what >= 0:
        raise ValueError(f"fault {number}={what!r}: choose drop, fail, close or a delay in seconds (>= 0)")
    return number, float(what)


def parse_faults(text: str) -> dict[int, str | float]:
    """`2=drop,5=fail,7=0.3` as a plan (ValueError says what is wrong)."""
    plan: dict[int, str | float] = {}
    for part in filter(None, (part.strip() for part in text.split(","))):
        number, sep, what = (piece.strip() for piece in part.partition("="))
        if not sep or not number.isdecimal():
            raise ValueError(f"{part!r}: write N=drop, N=fail, N=close or N=SECONDS")
        try:
            value: str | float = what.lower() if what.lower() in KINDS else float(what)
        except ValueError:
            raise ValueError(f"{part!r}: choose drop, fail, close or a delay in seconds") from None
        key, value = _checked(int(number), value)
        if key in plan:
            raise ValueError(f"{part!r}: request {key} has a fault already")
        plan[key] = value
    return plan


class Faults:
    """A server's plan and what it did: `next()` for each request it counts gives that request's fault (None:
    answer as usual); `faulted` lists (n, what) as they happened."""

    def __init__(self, plan: dict | None = None):
        self.plan = dict(_checked(n, what) for n, what in (plan or {}).items())
        self.counted = 0
        self.faulted: list[tuple[int, str | float]] = []

    def __bool__(self) -> bool:
        return bool(self.plan)

    def next(self) -> str | float | None:
        self.counted += 1
        what = self.plan.get(self.counted)
        if what is not None:
            self.faulted.append((self.counted, what))
        return what


def _plan(ctx, param, value):
    try:
        return parse_faults(value) if value else None
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def faults_option(counted: str, failure: str):
    """The servers' `--faults PLAN` (module doc); counted: the requests the server numbers; failure: its
    failure answer."""
    return click.option("--faults", type=str, default=None, callback=_plan, metavar="PLAN",
                        help=f"Inject faults, for tests with a known truth: N=drop (no answer), N=fail ({failure}), "
                             f"N=close (close without an answer) or N=SECONDS (the answer that much later) for the "
                             f"N-th {counted} (from 1, all connections together), comma-separated: 2=drop,5=fail.")
