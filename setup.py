"""Everything is configured in pyproject.toml. This shim only keeps `python setup.py ...` and the
Makefile's install stamp (which lists it) working."""
from setuptools import setup

setup()
