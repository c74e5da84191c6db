"""Work counted, not timed: complexity guards for tests (speed figures belong in tools/bench).

A clock fails on a loaded CI machine and passes a regression on a fast one; a count of what the code did is
the same on every machine. ``calls`` counts the function calls made (Python functions, generator resumes and
C functions called from Python: sys.setprofile's events), so a loop that goes quadratic, a memo that stops
answering or a table swept at every step shows as many more calls. Compare counts of two sizes of the same
input (the larger no more than its size's share), not against an absolute figure that moves with Python's
or a dependency's version.
"""
from __future__ import annotations

import sys


def calls(call) -> tuple[int, object]:
    """(function calls made while call() runs, its result)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(previous)
    return count, result
