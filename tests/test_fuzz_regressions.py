"""Every input the fuzzer (tools/fuzz.py, `make fuzz`) ever caught, replayed through its target with the
same invariants: only DecodeError escapes, spans tile the input and do not depend on how it was fed, no
input takes over 1 s, memory bounded by the input's size (always traced here)."""
from pathlib import Path

import pytest

from tools import fuzz

STORED = sorted(fuzz.CRASHERS.glob("*/*.bin"))


@pytest.mark.parametrize("path", STORED, ids=[f"{p.parent.name}/{p.stem[:12]}" for p in STORED])
def test_stored_crasher_satisfies_the_invariants(path: Path):
    name = path.parent.name
    assert name in fuzz.TARGETS, f"{path}: the folder must name a target ({', '.join(fuzz.TARGETS)})"
    found = fuzz.failure(fuzz.target(name), path.read_bytes(), trace=True)
    if found is not None and found[0] in fuzz.KNOWN.get(name, {}):
        pytest.xfail(f"known, not fixed yet: {fuzz.KNOWN[name][found[0]]}")
    assert found is None, f"{path}: {found[0]}\n{found[1]}"


def test_known_failures_still_fail():
    """When this fails a bug is fixed: delete its entry from tools/fuzz.py KNOWN."""
    for name, known in fuzz.KNOWN.items():
        run = fuzz.target(name)
        found = {fuzz.failure(run, p.read_bytes(), trace=False) for p in sorted((fuzz.CRASHERS / name).glob("*.bin"))}
        for signature in known:
            assert signature in {f[0] for f in found if f is not None}, f"{name} {signature} no longer fails"


@pytest.mark.parametrize("name", fuzz.TARGETS)
def test_every_target_passes_its_seeds(name):
    """The harness itself: the test vectors (the fuzzer's seeds) satisfy every invariant."""
    run = fuzz.target(name)
    seeds = [data for data in fuzz.seeds(name) if data not in fuzz.crashers(name)]
    assert seeds
    failures = [(data[:32].hex(), found[0]) for data in seeds if (found := fuzz.failure(run, data, trace=False))]
    assert failures == []
