#!/usr/bin/env bash
# Benchmark: orders per second when many orders race for few hosts. K hosts
# of one plan×site, N order POSTs from U users, C at a time: exactly K must
# get a server and the rest a clean "sold out" (end2end/bench/orders.mjs).
#   bash scripts/bench-orders.sh            # K=50 N=400 U=4 C=32, SQLite
# HOSTS, ORDERS, USERS, CONCURRENCY override. BENCH_DATABASE_URL=postgres://…
# runs it on PostgreSQL in a fresh schema (its search_path option, or a new
# bench_orders_<pid>), dropped afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
export HOSTS="${HOSTS:-50}" ORDERS="${ORDERS:-400}" USERS="${USERS:-4}" CONCURRENCY="${CONCURRENCY:-32}"
PLAN=g-l40s-x2 SITE=lax   # no hosts in the demo inventory: the K added are all there is
# Each user is its own organization, and an organization may place 20 orders a day.
(( HOSTS <= 20 * USERS )) || { echo "HOSTS must be at most 20 × USERS" >&2; exit 2; }

cargo build --release -p server --bin server
export SERVER_BIN="$CARGO_TARGET_DIR/release/server"
TMP="$(mktemp -d)"
SCHEMA=""
case "${BENCH_DATABASE_URL:-}" in
  postgres*)
    # A fresh schema each run: leftover orders or hosts would change K.
    SCHEMA="$(sed -n 's/.*search_path%3D\([A-Za-z0-9_]*\).*/\1/p' <<<"$BENCH_DATABASE_URL")"
    if [[ -z "$SCHEMA" ]]; then
      SCHEMA="bench_orders_$$"
      sep='?'; [[ "$BENCH_DATABASE_URL" == *\?* ]] && sep='&'
      BENCH_DATABASE_URL="$BENCH_DATABASE_URL${sep}options=-c%20search_path%3D$SCHEMA"
    fi
    PSQL_URL="${BENCH_DATABASE_URL%%\?*}"
    pg() { PGOPTIONS="-c client_min_messages=warning" psql "$PSQL_URL" -qc "$1"; }  # no NOTICE per table
    pg "drop schema if exists $SCHEMA cascade; create schema $SCHEMA" ;;
esac
export DATABASE_URL="${BENCH_DATABASE_URL:-sqlite:$TMP/gpu.db?mode=rwc}" RUST_LOG=warn
# Installs finish in 6 × 50 ms, so provisioning runs during the race too.
FLEET_DEV_STEP_MS=50 "$SERVER_BIN" --listen-addr 127.0.0.1:3910 & APP=$!
cleanup() {
  kill "$APP" 2>/dev/null || true; wait "$APP" 2>/dev/null || true
  if [[ -n "$SCHEMA" ]]; then pg "drop schema if exists $SCHEMA cascade"; fi
  rm -rf "$TMP"
}
trap cleanup EXIT
for _ in $(seq 1 150); do curl -sf http://127.0.0.1:3910/readyz >/dev/null && break; sleep 0.2; done
curl -sf http://127.0.0.1:3910/readyz >/dev/null || { echo "server not ready" >&2; exit 1; }

"$SERVER_BIN" hosts add --site "$SITE" --plan "$PLAN" --count "$HOSTS" >/dev/null
echo "### $ORDERS orders for $HOSTS free $PLAN hosts at $SITE (${DATABASE_URL%%:*})"
RC=0
BASE_URL=http://127.0.0.1:3910 PLAN="$PLAN" SITE="$SITE" node end2end/bench/orders.mjs || RC=$?
# The inventory agrees: nothing left free.
echo "free $PLAN hosts at $SITE afterwards: $("$SERVER_BIN" hosts list --site "$SITE" --plan "$PLAN" --state free | tail -1)"
exit "$RC"
