# The two commands of the README: `make run` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run test lint bench clean

$(VENV)/.run: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.run
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

# One gunicorn process with threads: the solver runs in its own processes, and the
# WebSocket streams each hold a thread. See docs/DEPLOY.md for a production set-up.
run: $(VENV)/.run
	$(VENV)/bin/gunicorn --workers 1 --threads 32 --bind $(HOST):$(PORT) \
		--access-logfile - --graceful-timeout 5 wsgi:app

test: $(VENV)/.test
	@test -x /usr/bin/chromium || { echo "The browser tests need Chromium at /usr/bin/chromium (Debian: apt-get install chromium)."; exit 1; }
	$(PY) -m pytest

lint: $(VENV)/.test
	$(VENV)/bin/ruff check webapp tests bench
	$(VENV)/bin/ruff format --check webapp tests bench

clean:
	rm -rf $(VENV) .pytest_cache
