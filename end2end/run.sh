#!/usr/bin/env bash
# Browser end-to-end tests for the storefront.
#
# Starts the storefront binary on a free port with a fresh SQLite database in a
# temp dir, waits for /readyz, runs Playwright (Chromium at /usr/bin/chromium)
# and always stops the server. Exit code is Playwright's.
#
# Env:
#   SERVER_BIN  server binary, relative to the repo root (default target/debug/server)
#   SITE_ROOT   Leptos site root holding /pkg/gpu-storefront.css (default target/site)
#   KEEP_TMP=1  keep the temp dir (database + server.log) after the run
#   FLEET_DEV_STEP_MS  simulated install step (default 400: an install takes
#               ~2.4 s, long enough to watch it in place, short enough to wait for)
# Extra arguments are passed to `playwright test` (e.g. a spec file or --grep).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

abspath() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$REPO_ROOT/$1" ;;
  esac
}

SERVER_BIN="$(abspath "${SERVER_BIN:-target/debug/server}")"
SITE_ROOT="$(abspath "${SITE_ROOT:-target/site}")"

if [[ ! -x "$SERVER_BIN" ]]; then
  echo "run.sh: server binary not found or not executable: $SERVER_BIN" >&2
  echo "run.sh: build it first (cargo build -p server) or set SERVER_BIN" >&2
  exit 2
fi
if [[ ! -f "$SITE_ROOT/pkg/gpu-storefront.css" ]]; then
  echo "run.sh: warning: $SITE_ROOT/pkg/gpu-storefront.css is missing; pages render unstyled" >&2
fi

TMP_DIR="$(mktemp -d "${TMPDIR:-/tmp}/gpu-e2e.XXXXXX")"
SERVER_LOG="$TMP_DIR/server.log"
SERVER_PID=""

cleanup() {
  local rc=$?
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  if [[ "${KEEP_TMP:-0}" == "1" ]]; then
    echo "run.sh: kept $TMP_DIR (server.log, gpu.db)" >&2
  else
    rm -rf "$TMP_DIR"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free TCP port on the loopback interface.
PORT="$(node -e '
  const s = require("net").createServer();
  s.listen(0, "127.0.0.1", () => { process.stdout.write(String(s.address().port)); s.close(); });
')"
BASE_URL="http://127.0.0.1:$PORT"
DATABASE_URL="sqlite:$TMP_DIR/gpu.db?mode=rwc"

echo "run.sh: starting $SERVER_BIN on $BASE_URL (db $TMP_DIR/gpu.db, site root $SITE_ROOT)"
DATABASE_URL="$DATABASE_URL" \
LISTEN_ADDR="127.0.0.1:$PORT" \
PUBLIC_BASE_URL="$BASE_URL" \
LEPTOS_SITE_ROOT="$SITE_ROOT" \
FLEET_DEV_STEP_MS="${FLEET_DEV_STEP_MS:-400}" \
  "$SERVER_BIN" >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

# Wait for /readyz (60 s).
deadline=$((SECONDS + 60))
until [[ "$(curl -fsS --max-time 2 "$BASE_URL/readyz" 2>/dev/null || true)" == ready* ]]; do
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "run.sh: server exited before it became ready; log:" >&2
    cat "$SERVER_LOG" >&2 || true
    exit 1
  fi
  if (( SECONDS >= deadline )); then
    echo "run.sh: server not ready after 60 s; log:" >&2
    tail -n 100 "$SERVER_LOG" >&2 || true
    exit 1
  fi
  sleep 0.2
done
echo "run.sh: server ready"

export BASE_URL SERVER_BIN DATABASE_URL

cd "$SCRIPT_DIR"
if [[ ! -d node_modules ]]; then
  echo "run.sh: installing node modules (npm ci)"
  npm ci --no-audit --no-fund
fi

set +e
npx --no-install playwright test "$@"
PW_RC=$?
set -e

if [[ $PW_RC -ne 0 ]]; then
  echo "run.sh: playwright failed (exit $PW_RC); last server log lines:" >&2
  tail -n 40 "$SERVER_LOG" >&2 || true
fi
exit "$PW_RC"
