# The two commands of the README: `make run` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: run cluster test lint bench clean warm system-packages mutate

$(VENV)/.run: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.test: $(VENV)/.run
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

# Compile the solvers' numba kernels, or load them from their cache (a second or two), so
# no player's first solve waits for the compiler (docs/cli.md).
warm: $(VENV)/.run
	$(PY) -m webapp warm

# One gunicorn process with threads, as webapp/ops/serving.py sets it up: the solvers run in
# processes of their own; each WebSocket stream, and each new connection until its headers
# are in (at most 5 s), holds a thread. Bound to this machine only: docs/DEPLOY.md puts a
# proxy in front for the world.
run: warm
	$(VENV)/bin/gunicorn -c python:webapp.ops.serving --bind $(HOST):$(PORT) wsgi:app

# The scaled mode on this machine: Redis and PostgreSQL (files in instance/cluster/), WEB gunicorn
# web processes serving on PORT and WORKERS solver workers; Ctrl+C stops them all.
# docs/DEPLOY.md spreads the same pieces over several hosts.
WEB ?= 2
WORKERS ?= 2
REDIS_PORT ?= 6379
PG_PORT ?= 5432
cluster: SYSTEM_NEEDS = $(CLUSTER_NEEDS)
cluster: system-packages warm
	$(PY) -m webapp.ops.cluster --web $(WEB) --workers $(WORKERS) --host $(HOST) --port $(PORT) \
		--redis-port $(REDIS_PORT) --pg-port $(PG_PORT)

# The Debian packages the tests need beyond Python: the program each provides, then the package
# (a path may be a pattern: PostgreSQL's binaries live under its version's folder, and
# tests/postgres.py finds whichever version is there).
SYSTEM_NEEDS := /usr/bin/chromium:chromium /usr/lib/postgresql/*/bin/initdb:postgresql \
	/usr/bin/redis-server:redis-server /usr/sbin/nginx:nginx-light
# What `make cluster` needs (its own SYSTEM_NEEDS, for the same target).
CLUSTER_NEEDS := /usr/lib/postgresql/*/bin/initdb:postgresql /usr/bin/redis-server:redis-server

# Install whichever of SYSTEM_NEEDS is missing: with apt-get as root, or else say what to install.
system-packages:
	@missing=""; for need in $(SYSTEM_NEEDS); do \
		found=""; for program in $${need%%:*}; do test -x "$$program" && found=1; done; \
		test -n "$$found" || missing="$$missing $${need##*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "Installing$$missing (Debian packages that 'make $(or $(MAKECMDGOALS),$@)' needs)"; \
			export DEBIAN_FRONTEND=noninteractive; \
			apt-get update -qq && apt-get install -y -qq$$missing >/dev/null \
				|| { echo "apt-get could not install$$missing."; exit 1; }; \
		else \
			echo "'make $(or $(MAKECMDGOALS),$@)' needs these Debian packages: install them with 'sudo apt-get install$$missing'."; \
			exit 1; \
		fi; \
	fi

# Two test processes, a file each at a time: most tests wait on a server, a browser or a
# solver child, so two overlap well even on two cores. One file alone: .venv/bin/python -m pytest tests/x.py
test: system-packages $(VENV)/.test warm
	$(PY) -m pytest -n 2 --dist loadfile

# Mutation testing: small changes made to the modules that hold the product's promises, each
# run against the tests that call it (mutmut; [tool.mutmut] in pyproject.toml). A mutant the
# tests do not notice is a promise no test proves: it gets a test, or is written down as
# equivalent in bench/RESULTS.md. MUTANTS picks functions by name (module.x_function*,
# module.xǁClassǁmethod*); one worker at low priority, so it leaves a core to everyone else.
# The mutants stay in mutants/ for `.venv/bin/mutmut show NAME` and `mutmut browse`.
MUTANTS ?= 'webapp.games.solving.*' 'webapp.checking.*' 'webapp.generating.x_generate*' \
	'webapp.generating.x_title_of*' 'webapp.games.sokoban.optimize.x_improve*' \
	'webapp.games.sokoban.optimize.x__replay*' 'webapp.games.sokoban.optimize.xǁOptimizerǁ_near*' \
	'webapp.core.records.*' 'webapp.core.ratings.x_update*' 'webapp.core.ratings.x_attempt*' \
	'webapp.core.ratings.x_predicted*' 'webapp.core.ratings.x__expected*' \
	'webapp.web.making.x_daily*' 'webapp.web.making.x_streak*' 'webapp.web.making.x_share_text*' \
	'webapp.web.budgets.x_client_key*' 'webapp.web.budgets.x_address_key*' \
	'webapp.web.budgets.xǁAllowanceǁ*' 'webapp.web.budgets.x_allow_new_player*' \
	'webapp.web.budgets.x_move_bytes*'
mutate: $(VENV)/.test
	nice -n 10 $(VENV)/bin/mutmut run --max-children 1 $(MUTANTS)
	$(PY) bench/mutants.py $(MUTANTS)

lint: $(VENV)/.test
	$(VENV)/bin/ruff check webapp tests bench
	$(VENV)/bin/ruff format --check webapp tests bench

clean:
	rm -rf $(VENV) .pytest_cache
