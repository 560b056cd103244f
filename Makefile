# Two commands on a fresh machine: `make run` and `make test`. Only python3 is needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum requirements.lock | cut -d' ' -f1)

.PHONY: run test install lint typecheck migrations-check pytest bench lock clean nlu-model

run: install
	$(BIN)/python -m tulia.launcher

test: install lint typecheck migrations-check pytest

install: $(STAMP)

$(STAMP): requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check uv==0.13.9
	$(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.lock
	rm -f $(VENV)/.installed-* && touch $@

lint:
	$(BIN)/ruff check .

typecheck:
	$(BIN)/mypy .

migrations-check:
	TULIA_PROFILE=test $(BIN)/python manage.py makemigrations --check --dry-run

pytest:
	$(BIN)/pytest -p xdist -n $${PYTEST_WORKERS:-2} --durations=10

bench: install
	$(BIN)/python bench/run_all.py

# Rebuild the committed NLU model (journeys/nlu/data/nlu_model.joblib) from our own
# labelled writing and the public corpora in ../shared/corpora (journeys/nlu/DATA.md).
nlu-model: install
	$(BIN)/python -m journeys.nlu.build

# Re-resolve the pinned dependency set after editing requirements.in.
lock: install
	$(BIN)/uv pip compile requirements.in --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV) var
