"""The package's public names: a function must never shadow the submodule it lives in (issue 12: README's
`payload.payload(frame)` raised AttributeError because `inlong_proto.dataproxy.payload` was a function)."""
import importlib
import pkgutil
import types

import inlong_proto


def _packages():
    yield inlong_proto
    for info in pkgutil.walk_packages(inlong_proto.__path__, "inlong_proto."):
        if info.ispkg and not info.name.startswith("inlong_proto.generated"):
            yield importlib.import_module(info.name)


def test_no_package_attribute_shadows_a_submodule():
    checked = 0
    for package in _packages():
        for info in pkgutil.iter_modules(package.__path__):
            name = f"{package.__name__}.{info.name}"
            if name.startswith("inlong_proto.generated") or info.name == "__main__":
                continue  # the generated tree has its own layout; __main__ runs the CLI
            module = importlib.import_module(name)
            value = getattr(package, info.name)
            assert isinstance(value, types.ModuleType) and value is module, \
                f"{package.__name__}.{info.name} is {value!r}, not the submodule {name}"
            checked += 1
    assert checked > 20


def test_the_dataproxy_functions_have_their_own_names():
    from inlong_proto import dataproxy
    from inlong_proto.dataproxy.payload import payload
    from inlong_proto.dataproxy.records import records

    assert dataproxy.read_payload is payload and dataproxy.iter_records is records
    assert dataproxy.payload.payload is payload and dataproxy.records.records is records
