# inlong-proto: every target installs what it needs first (make setup), so a fresh clone works as is.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup native generate check-generated test test-pure bench bench-spark bench-memory bench-cli demo clean fuzz fuzz-short \
	ubsan

$(STAMP): pyproject.toml setup.py tools/ksc/package.json tools/ksc/package-lock.json
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	cd tools/ksc && npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

setup: $(STAMP) native
	@{ command -v dot >/dev/null && command -v tcpdump >/dev/null && command -v tshark >/dev/null; } || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq \
	    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz tcpdump tshark >/dev/null; \
	  else echo "note: graphviz, tcpdump or tshark is missing (sudo apt-get install graphviz tcpdump tshark);"\
	    "make generate needs graphviz, the live capture test tcpdump, tests/wireshark tshark"; fi; }

# The compiled backend (the one extension inlong_proto._compiled, from every file of generated/native) rebuilt in
# place whenever its generated source changes; without a C compiler nothing is built and the pure-Python codecs
# run. The in-place extensions of the old names (five, before there was one) are removed so nothing imports them.
NATIVE_STAMP := $(VENV)/.native
$(NATIVE_STAMP): $(STAMP) $(wildcard generated/native/*.c generated/native/*.h)
	rm -f $(foreach old,_native _native_encode _capture_native _tubemq_layer _eventmesh_layer,inlong_proto/$(old).*.so)
	$(PY) setup.py --quiet build_ext --inplace
	touch $(NATIVE_STAMP)

native: $(NATIVE_STAMP)

# Everything under generated/ from specs/ (own codecs, Kaitai + Construct references, diagrams, protobuf).
generate: setup
	$(PY) tools/generate.py

# CI: the committed generated/ must be exactly what make generate writes.
check-generated: generate
	git diff --exit-code --stat -- generated
	@test -z "$$(git status --porcelain -- generated)" || { git status --porcelain -- generated; exit 1; }

test: setup
	$(PY) -m pytest

# The tests whose code paths depend on the backend, run again on the pure-Python one (INLONG_PROTO_BACKEND);
# tests/test_native_backend.py compares the two backends within one run.
PURE_TESTS := tests/test_native_spark.py tests/test_spark.py tests/test_spark_source.py tests/test_spark_s3.py \
	tests/test_recovery.py tests/test_spark_capture.py tests/test_spark_job.py tests/test_spark_conventions.py \
	tests/dataproxy/test_records_spark.py tests/tubemq/test_spark_tubemq.py tests/eventmesh/test_h2_grpc.py \
	tests/eventmesh/test_http.py tests/test_spark_hostile.py

test-pure: setup
	INLONG_PROTO_BACKEND=python $(PY) -m pytest -m 'not compiled' $(PURE_TESTS)

bench: setup
	$(PY) tools/bench/codecs.py
	$(PY) tools/bench/native.py
	$(PY) tools/bench/native_encode.py
	$(PY) tools/bench/native_spark.py
	$(PY) tools/bench/auto_spark.py
	$(PY) tools/bench/native_capture.py
	$(PY) tools/bench/audit.py
	$(PY) tools/bench/recovery.py
	$(PY) tools/bench/hostile.py
	$(PY) tools/bench/spark.py
	$(PY) tools/bench/memory.py

# The Spark readers at the default split size, 2 splits per core per file, 1 core vs all cores, local files
# and an S3 bucket (moto on loopback), dumps and one large capture (about 15 minutes and 3 GiB of disk on 2 cores).
bench-spark: setup
	$(PY) tools/bench/spark.py
	$(PY) tools/bench/ingest.py
	$(PY) tools/bench/auto_spark.py

# A 4 GiB dump through spark.read.format("inlong"): peak RSS of the JVM and Python workers (needs 4 GiB of disk).
bench-memory: setup
	$(PY) tools/bench/memory.py

bench-cli: setup
	$(PY) tools/bench/cli.py

# Coverage-guided fuzzing (atheris) of every decoder, payload layer, to_dict and the capture reader, seeded
# from tests/vectors; crashers land in tests/vectors/fuzz/<target>/ (replayed by tests/test_fuzz_regressions.py).
# make fuzz RUNS=1000000: at least that many inputs per target; FUZZ_SECONDS=S: S seconds per target instead.
FUZZ_SECONDS ?= 30
fuzz: setup
	$(PY) tools/fuzz.py $(if $(RUNS),--runs $(RUNS),--seconds $(FUZZ_SECONDS))

# The compiled backend under UndefinedBehaviorSanitizer (gcc; any report aborts): the extension built into
# build/ubsan (the in-place one untouched), put first on inlong_proto's package path (the loaded extension must
# be that one), then the tests that drive every part of it over the vectors and the fuzz corpus on the native
# backend (about 5 CPU minutes).
# --capture=sys: a report goes straight to stderr before the abort.
UBSAN_DIR   := build/ubsan
UBSAN_FLAGS := -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
UBSAN_TESTS := tests/test_native_backend.py tests/test_fuzz_regressions.py tests/test_native_encode.py \
	tests/capture/test_native_capture.py tests/tubemq/test_tubemq_native_layer.py \
	tests/eventmesh/test_eventmesh_native_layer.py tests/broadcast/test_vectors.py tests/test_native_empty_values.py
ubsan: setup
	rm -rf $(UBSAN_DIR)
	CFLAGS="$(UBSAN_FLAGS)" LDFLAGS="-fsanitize=undefined" $(PY) setup.py --quiet build_ext --force \
	  --build-lib $(UBSAN_DIR)/lib --build-temp $(UBSAN_DIR)/temp
	UBSAN_OPTIONS=print_stacktrace=1 INLONG_PROTO_BACKEND=native $(PY) -c "import sys, pytest, inlong_proto; \
	  inlong_proto.__path__.insert(0, '$(abspath $(UBSAN_DIR))/lib/inlong_proto'); from inlong_proto.backends import compiled as native; \
	  loaded = native.extension(); assert loaded is not None, native.origin(); \
	  assert loaded.__file__.startswith('$(abspath $(UBSAN_DIR))'), loaded.__file__; \
	  sys.exit(pytest.main(['-q', '--capture=sys', '-p', 'no:cacheprovider', '-k', 'not generated_source', \
	    *'$(UBSAN_TESTS)'.split()]))"

# The short pass CI runs: 4 s per target, 2 at a time (about 30 s in all).
fuzz-short: setup
	$(PY) tools/fuzz.py --seconds 4

demo: setup
	$(VENV)/bin/inlong-proto demo

clean:
	rm -rf $(VENV) tools/ksc/node_modules build *.egg-info out .pytest_cache .hypothesis

# The documentation site (docs/, mkdocs.yml) built into site/. --strict: a broken link, a missing page or a
# docstring mkdocstrings cannot read fails the build. The protocol pages are generated/docs (make generate).
.PHONY: docs
docs: setup
	$(VENV)/bin/mkdocs build --strict --site-dir site
