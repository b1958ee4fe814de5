#!/usr/bin/env bash
# Benchmark: GET /api/v1/stock (live stock as JSON), the same with a
# matching If-None-Match (304), and a static file served by the same server
# (/favicon.svg), wrk -t2 -c64, RUNS runs each, interleaved. The
# conditional request should cost about what the static file does.
#   bash scripts/bench-api-stock.sh [seconds] [runs]
# BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty schema or
# database: the demo inventory is seeded on first start).
# BENCH_BIN=path/to/server skips the build (a release binary of this tree).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
RUNS="${2:-3}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
if [ -z "${BENCH_BIN:-}" ]; then
  source scripts/setup.sh
  cargo build --release -p server --bin server
  BENCH_BIN="$CARGO_TARGET_DIR/release/server"
fi
TMP="$(mktemp -d)"
PORT="${BENCH_PORT:-3910}"
export DATABASE_URL="${BENCH_DATABASE_URL:-sqlite:$TMP/gpu.db?mode=rwc}" RUST_LOG=warn
# The committed static assets: /favicon.svg is served from here.
export LEPTOS_SITE_ROOT="$PWD/public"
"$BENCH_BIN" --listen-addr "127.0.0.1:$PORT" & APP=$!
trap 'kill $APP 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
BASE="http://127.0.0.1:$PORT"
ETAG="$(curl -sfI "$BASE/api/v1/stock" | awk -F': ' 'tolower($1) == "etag" {print $2}' | tr -d '\r')"
echo "### $(nproc) cores; ETag $ETAG; body $(curl -sf "$BASE/api/v1/stock" | wc -c) bytes;" \
  "favicon $(curl -sf "$BASE/favicon.svg" | wc -c) bytes"
curl -s -o /dev/null -w "304 check: %{http_code}\n" -H "If-None-Match: $ETAG" "$BASE/api/v1/stock"

rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
pct() { awk -v p="$2" '$1 == p {print $2}' <<<"$1"; }
row() { echo "| $1 | $2 | $(rps "$3") | $(pct "$3" 50%) | $(pct "$3" 99%) |"; }
TABLE="| what | run | req/s | p50 | p99 |
|---|---|---|---|---|"
for RUN in $(seq 1 "$RUNS"); do
  echo "### run $RUN, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  A="$(wrk -t2 -c64 -d"${DURATION}s" --latency "$BASE/api/v1/stock")"
  B="$(wrk -t2 -c64 -d"${DURATION}s" --latency -H "If-None-Match: $ETAG" "$BASE/api/v1/stock")"
  C="$(wrk -t2 -c64 -d"${DURATION}s" --latency "$BASE/favicon.svg")"
  TABLE="$TABLE
$(row "GET /api/v1/stock (200)" "$RUN" "$A")
$(row "GET /api/v1/stock, If-None-Match (304)" "$RUN" "$B")
$(row "GET /favicon.svg (static)" "$RUN" "$C")"
done
echo "$TABLE"
# Still exact after the load: a change by another process shows at once.
echo "after the load: $(curl -s "$BASE/api/v1/stock?plan=g-l40s-x2&site=fra")"
for HOST in $("$BENCH_BIN" hosts list --site fra --plan g-l40s-x2 --state free | awk 'NR>1 && NF>3 {print $1}' | head -2); do
  "$BENCH_BIN" hosts set "$HOST" maintenance >/dev/null
done
curl -s -o /dev/null -w "old ETag after taking two hosts out: %{http_code}\n" -H "If-None-Match: $ETAG" "$BASE/api/v1/stock"
echo "now: $(curl -s "$BASE/api/v1/stock?plan=g-l40s-x2&site=fra")"
