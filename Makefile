# Two entry points: `make run` (dashboard and the demo venue sites, offline) and `make test` (every test, browser included).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# the OpenStreetMap pack: built at install, and again when its builder changes
PACK := data/regions/helsinki/places.csv

.PHONY: team run test quick lint install api valhalla amap-standin clean

# Compiled modules are written (__pycache__, ignored by git) even where the environment says not to: without them
# every pytest process compiles and assertion-rewrites some 650 test modules again (about 12 s of CPU each), and every
# server, worker or CLI a test or `make run` starts compiles the product again.
unexport PYTHONDONTWRITEBYTECODE

$(STAMP): requirements.txt requirements-dev.txt scripts/install_leaflet.py scripts/compile_kernels.py scripts/build_packs.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) scripts/install_leaflet.py
	$(PY) scripts/compile_kernels.py
	$(PY) scripts/build_packs.py
	touch $(STAMP)

$(PACK): core/packs/osm.py core/packs/entrances.py core/packs/build.py core/packs/names.py data/names/helsinki_zh.csv | $(STAMP)
	$(PY) scripts/build_packs.py

install: $(STAMP) $(PACK)

# The demo venue websites (python -m core venues serve, 127.0.0.1:$OMNI_VENUES_PORT, default 8765) run beside the
# dashboard, so "check the hotel's website" works offline; they stop with it (the trap, on any exit or Ctrl-C).
# OMNI_VENUES_SERVE=1 tells the dashboard they run: only then does its default browse allowlist name their port.
run: $(STAMP) $(PACK)
	$(PY) -m core venues serve & venues=$$!; \
	trap 'kill $$venues 2>/dev/null' EXIT INT TERM; \
	OMNI_VENUES_SERVE=1 $(PY) -m components.server_start --server.headless true --browser.gatherUsageStats false

api: $(STAMP)
	$(VENV)/bin/uvicorn api:app --host 127.0.0.1 --port 8000

# A team on one machine (issue 33): Redis, PostgreSQL, the API on 2 workers (127.0.0.1:8000), two dashboards
# (8501, 8502), a Dask scheduler (8786) with two workers; every process shares the AMap key's limits, the provider
# cache and the half-day waits through Redis. Ctrl-C stops them all (scripts/team.py; README, "A team deployment").
team: $(STAMP) $(PACK)
	$(PY) scripts/team.py

amap-standin: $(STAMP)  # a local AMap keeping a key's limits (OMNI_AMAP_BASE_URL=the printed base_url; any key)
	$(PY) -m standins amap --port 8766 --qps 1 --daily 5000

valhalla: $(STAMP) $(PACK)  # the helsinki pack's roads over HTTP on 127.0.0.1:8002 (OMNI_VALHALLA_URL=http://127.0.0.1:8002)
	$(PY) -m core pack serve helsinki --port 8002

# PostgreSQL (Debian's, when installed) for the tests that run on both databases. Three workers (pytest-xdist) for
# all but the browser tests (on two cores: a third keeps them busy while the fault suites wait on their deadlines).
# Then the browser tests, one at a time (two at once raced on their reruns), on one Chromium for the run and one
# Streamlit server per distinct environment (tests/support: SHARED_CHROMIUM, ServerPool), and beside them, at nice 19 and in the idle I/O class where the machine allows it, so they take only what
# the browser leaves (a test waits on its page most of the time), the suites that touch dates with the machine's
# clock a year ahead, late on the next leap day and on New Year's Eve (scripts/time_travel.py; Debian's faketime).
# Their report is printed after the browser tests'.
test: $(STAMP) $(PACK)
	export OMNI_TEST_PG_URL="$$($(PY) scripts/test_postgres.py)"; \
	$(PY) -m pytest -n 3 -m "not browser" || exit 1; \
	idle_io=$$(ionice -c 3 true 2>/dev/null && echo ionice -c 3); travel_log=$$(mktemp); \
	nice -n 19 $$idle_io $(PY) scripts/time_travel.py > $$travel_log 2>&1 & travel=$$!; \
	trap 'kill $$travel 2>/dev/null; rm -f $$travel_log' INT TERM; \
	$(PY) -m pytest -m browser; browser=$$?; \
	wait $$travel; travelled=$$?; cat $$travel_log; rm -f $$travel_log; \
	[ $$browser -eq 0 ] && [ $$travelled -eq 0 ]

quick: $(STAMP) $(PACK)  # the fast subset while developing: no pages, no browser, no solver runs
	OMNI_TEST_PG_URL="$$($(PY) scripts/test_postgres.py)" $(PY) -m pytest -n 2 -m "not ui and not slow"

# lint-imports: the import layers of pyproject.toml ([tool.importlinter]). app.py and api.py are single files, outside
# its graph, so the grep holds them to the same rule: no benchmarks, tests or development-only packages (api_routes/,
# a package in the graph, is held by the contracts and by the grep too).
lint: $(STAMP)
	$(PY) scripts/check_clock.py
	$(PY) scripts/check_architecture.py
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-logo
	! grep -nE '^[[:space:]]*(from|import)[[:space:]]+(bench|tests|hypothesis|pytest|schemathesis|playwright|mypy|ruff)([.[:space:]]|$$)' app.py api.py api_routes/*.py
	! grep -nE '^[[:space:]]*(from|import)[[:space:]]+core\.(route|itinerary|agent|halfday|reservations|lab|geo|optimizer|packs|stores)([.[:space:]]|$$)' app.py api.py api_routes/*.py
	! grep -nE '^[[:space:]]*from[[:space:]]+core[[:space:]]+import[[:space:]].*\b(route|itinerary|agent|halfday|reservations|lab|geo|optimizer|packs|stores)\b' app.py api.py api_routes/*.py

clean:
	rm -rf $(VENV) static/leaflet test-artifacts .pytest_cache
