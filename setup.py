"""Maps generated/ into the package as inlong_proto.generated (pyproject.toml holds everything else)."""
from setuptools import find_packages, setup

packages = ["inlong_proto"] + [f"inlong_proto.{p}" for p in find_packages("inlong_proto")]
packages += ["inlong_proto.generated"] + [f"inlong_proto.generated.{p}" for p in find_packages("generated")]
setup(packages=packages, package_dir={"inlong_proto": "inlong_proto", "inlong_proto.generated": "generated"})
