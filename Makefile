# inlong-proto: every target installs what it needs first (make setup), so a fresh clone works as is.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup generate check-generated test bench bench-spark demo clean

$(STAMP): pyproject.toml setup.py tools/ksc/package.json tools/ksc/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	cd tools/ksc && npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

setup: $(STAMP)
	@command -v dot >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq graphviz >/dev/null; \
	  else echo "note: graphviz is missing (sudo apt-get install graphviz); make generate needs it"; fi; }

# Everything under generated/ from specs/ (own codecs, Kaitai + Construct references, diagrams, protobuf).
generate: setup
	$(PY) tools/generate.py

# CI: the committed generated/ must be exactly what make generate writes.
check-generated: generate
	git diff --exit-code --stat -- generated
	@test -z "$$(git status --porcelain -- generated)" || { git status --porcelain -- generated; exit 1; }

test: setup
	$(PY) -m pytest

bench: setup
	$(PY) tools/bench.py
	$(PY) tools/bench_spark.py

# Only the Spark readers' throughput (a few minutes on 2 cores).
bench-spark: setup
	$(PY) tools/bench_spark.py

demo: setup
	$(VENV)/bin/inlong-proto demo

clean:
	rm -rf $(VENV) tools/ksc/node_modules build *.egg-info out .pytest_cache .hypothesis
