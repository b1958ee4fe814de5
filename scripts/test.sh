#!/usr/bin/env bash
# Sets up and runs the whole test suite: formatting and lints, unit tests,
# integration tests on SQLite and on PostgreSQL, and the end-to-end tests in
# Chromium. Exits non-zero if anything fails or the PostgreSQL leg did not run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

say "browser, PostgreSQL client and Java (for the HTML checker)"
if ! command -v chromium >/dev/null || ! command -v psql >/dev/null || ! command -v java >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    chromium chromium-driver postgresql-client default-jre-headless >/dev/null
fi

say "Redfish BMC emulator (sushy-tools, for the Fleet's tests)"
# The Redfish Fleet's tests start sushy-tools' emulator through
# server/tests/fixtures/redfish/emulator.py, with the Python of this venv.
# Every package pinned in requirements.txt; reinstalled when it changes.
SUSHY_REQUIREMENTS="$ROOT/server/tests/fixtures/redfish/requirements.txt"
SUSHY_VENV="$CACHE/tools/sushy"
SUSHY_STAMP="$(sha256sum "$SUSHY_REQUIREMENTS" | cut -c1-16)"
if [ "$(cat "$SUSHY_VENV/.stamp" 2>/dev/null)" != "$SUSHY_STAMP" ]; then
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  rm -rf "$SUSHY_VENV"
  python3 -m venv "$SUSHY_VENV"
  "$SUSHY_VENV/bin/python" -m pip install -q -r "$SUSHY_REQUIREMENTS"
  echo "$SUSHY_STAMP" > "$SUSHY_VENV/.stamp"
fi
export SUSHY_EMULATOR_PYTHON="$SUSHY_VENV/bin/python"

# The shared target directory must not grow with every run (each clone's
# path gives the workspace crates new artifacts): no incremental caches in
# test runs, and this workspace's own artifacts rebuilt fresh each time.
export CARGO_INCREMENTAL=0
cargo clean -q -p server -p app -p backend -p domain -p frontend 2>/dev/null || true

say "deployment files (deploy/: nginx -t, promtool, systemd-analyze)"
# Also installs Debian's nginx, which the load-balanced integration tests
# (server/tests/it/load_balanced.rs) run in front of two replicas.
bash scripts/check-deploy.sh

source scripts/postgres.sh
trap pg_throwaway_stop EXIT

say "formatting and lints"
cargo fmt --all -- --check
# The wasm entry point builds for the browser only; app's ssr and hydrate
# features must not meet in one build.
cargo clippy --workspace --exclude frontend --all-targets -- -D warnings
cargo clippy -p frontend --target wasm32-unknown-unknown -- -D warnings

say "unit and integration tests (SQLite and PostgreSQL)"
# The integration tests mostly wait (the development Fleet's step timings,
# the worker's polling), not compute: four at a time on two cores ran the
# one integration binary in 304 s against 364-455 s with two.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-4}"
LOG="$(mktemp)"
cargo test --workspace --exclude frontend 2>&1 | tee "$LOG"
rust_passed=$(grep -oE '^test result: ok\. [0-9]+ passed' "$LOG" | awk '{s+=$4} END {print s+0}')
pg_ran=$(grep -cE '::postgres \.\.\. ok$' "$LOG" || true)
sqlite_ran=$(grep -cE '::sqlite \.\.\. ok$' "$LOG" || true)
rm -f "$LOG"
if [ "$pg_ran" -eq 0 ] || [ "$pg_ran" -ne "$sqlite_ran" ]; then
  echo "The PostgreSQL leg did not run completely ($pg_ran PostgreSQL vs $sqlite_ran SQLite tests)" >&2
  exit 1
fi

say "building the site (CSS, wasm)"
# The end-to-end server is the binary `cargo test` just built for the
# integration tests (and scripts/run.sh serves): the same code, and its
# dependencies are already compiled.
bash scripts/build-site.sh

say "end-to-end tests in Chromium"
E2E_LOG="$(mktemp)"
SERVER_BIN="$CARGO_TARGET_DIR/debug/server" SITE_ROOT=target/site bash end2end/run.sh 2>&1 | tee "$E2E_LOG"
e2e_passed=$(grep -oE '^\s*[0-9]+ passed' "$E2E_LOG" | awk '{s+=$1} END {print s+0}')
rm -f "$E2E_LOG"

say "done"
echo
echo "Rust: $rust_passed passed ($sqlite_ran on SQLite, $pg_ran on PostgreSQL); end-to-end: $e2e_passed passed"
echo "tests: $((rust_passed + e2e_passed)) passed, 0 failed"
