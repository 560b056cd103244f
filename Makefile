# Two commands on a fresh machine: `make run` and `make test`. Only python3 is needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum requirements.lock | cut -d' ' -f1)

.PHONY: run test test-fast install lint typecheck migrations-check pytest bench lock clean stop-servers nlu-model

run: install
	$(BIN)/python -m tulia.launcher

test: install lint typecheck migrations-check pytest

install: $(STAMP) /usr/bin/chromium

# Pages people use are tested in Debian's Chromium (Playwright drives it; no browser download).
/usr/bin/chromium:
	apt-get update -qq && apt-get install -y -qq chromium

$(STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.lock
	rm -f $(VENV)/.installed-* && touch $@

lint:
	$(BIN)/ruff check .
	$(BIN)/vulture  # dead code: paths and whitelist in pyproject.toml [tool.vulture]

typecheck:
	$(BIN)/mypy .

migrations-check:
	TULIA_PROFILE=test $(BIN)/python manage.py makemigrations --check --dry-run

# Compiled bytecode is kept in var/pycache even where PYTHONDONTWRITEBYTECODE is set:
# without it every test process compiles every module it imports (the venv's included)
# and pytest rewrites every test module again, about 20 s of CPU a worker.
PYCACHE := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/var/pycache

pytest:
	$(PYCACHE) $(BIN)/pytest -p xdist -n $${PYTEST_WORKERS:-2} --durations=10

# The edit loop: unit and engine tests (markers set in tests/conftest.py), no launcher
# boot, no deploy validators, no worker/server processes, no model rebuilds, no
# end-to-end transcript replays, and
# properties at a few examples each (tests/hypothesis_profiles.py). The test databases
# are kept between runs (--reuse-db; Django still applies new migrations to them), which
# saves each worker a minute of migrating. CI runs `make test`, which runs everything on
# fresh databases. Measured on 2 quiet cores (load 0.04): 930 tests in 69 s wall, 75 s of
# CPU in pytest (was 180 s wall, 143 s CPU for 906); nothing in it waits on real time
# (emulators stop within 50 ms, the campaign rate gate takes a movable clock).
FAST_MARKERS := (unit or engine) and not launcher and not deploy and not process and not build and not transcript
test-fast: install
	$(PYCACHE) $(BIN)/pytest -p xdist -n $${PYTEST_WORKERS:-2} -m "$(FAST_MARKERS)" \
		--hypothesis-profile=fast --reuse-db --durations=15

bench: install
	$(BIN)/python bench/run_all.py

# Rebuild the committed NLU model (journeys/nlu/data/nlu_model.joblib) from our own
# labelled writing and the public corpora in ../shared/corpora (journeys/nlu/DATA.md).
nlu-model: install
	$(BIN)/python -m journeys.nlu.build

# Re-resolve the pinned dependency set after editing requirements.in.
lock: install
	$(BIN)/uv pip compile requirements.in --python-version 3.11 -o requirements.lock

# The test run keeps its embedded PostgreSQL and Redis (var/test) for the next run;
# the launcher stops the dev pair it started itself. This stops both pairs.
stop-servers:
	-test -x $(BIN)/python && $(BIN)/python -m tulia.embedded stop test
	-test -x $(BIN)/python && $(BIN)/python -m tulia.embedded stop dev

clean: stop-servers
	rm -rf $(VENV) var
