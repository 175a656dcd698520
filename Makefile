# phenorules: `make predict` installs (once) and runs the main job on the bundled example;
# `make test` runs the tests. `make eval` scores on ../shared/patientphex/train.jsonl.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED := ../shared/patientphex/train.jsonl
OUT := out

.PHONY: install predict test eval bench clean

$(BIN)/phenorules: setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/phenorules

predict: install
	@mkdir -p $(OUT)
	$(BIN)/phenorules predict examples/example_article.jsonl -o $(OUT)/example_predictions.jsonl
	@echo "wrote $(OUT)/example_predictions.jsonl"
	$(BIN)/phenorules evaluate examples/example_article.jsonl $(OUT)/example_predictions.jsonl

test: install
	$(BIN)/python -m pytest

eval: install
	@if [ -f $(SHARED) ]; then \
		mkdir -p $(OUT) && \
		$(BIN)/phenorules predict $(SHARED) -o $(OUT)/train_predictions.jsonl && \
		$(BIN)/phenorules evaluate $(SHARED) $(OUT)/train_predictions.jsonl; \
	else echo "$(SHARED) not found: make eval needs the shared task data"; fi

bench: install
	$(BIN)/python benchmarks/bench.py $(SHARED)

clean:
	rm -rf $(VENV) $(OUT) build *.egg-info
