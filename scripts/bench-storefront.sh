#!/usr/bin/env bash
# Benchmark: the home page with live stock against the same bytes served as
# a static response, same machine, one run each (wrk, 2 threads, 64
# connections). Also checks stock is still exact right after the load, then
# runs two replicas on the one database side by side (32 connections each)
# and changes stock while both serve: each must show it on its next request.
#   bash scripts/bench-storefront.sh [seconds]
# BENCH_DATABASE_URL=postgres://… runs it on PostgreSQL (an empty schema or
# database: the demo inventory is seeded on first start).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
DURATION="${1:-15}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

cargo build --release -p server --bin server --example static_page
BIN="$CARGO_TARGET_DIR/release/server"
STATIC="$CARGO_TARGET_DIR/release/examples/static_page"
TMP="$(mktemp -d)"
export DATABASE_URL="${BENCH_DATABASE_URL:-sqlite:$TMP/gpu.db?mode=rwc}" RUST_LOG=warn
"$BIN" --listen-addr 127.0.0.1:3900 & APP=$!
trap 'kill $APP ${STATIC_PID:-} ${APP2:-} 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:3900/readyz >/dev/null && break; sleep 0.1; done
curl -sf http://127.0.0.1:3900/en -o "$TMP/page.html"
"$STATIC" "$TMP/page.html" 127.0.0.1:3901 & STATIC_PID=$!
sleep 0.5

run() { wrk -t2 -c64 -d"${DURATION}s" --latency "$1"; }
echo "### $(nproc) cores; load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "### storefront /en (live stock), $(wc -c < "$TMP/page.html") bytes"
DYN="$(run http://127.0.0.1:3900/en)"; echo "$DYN"
echo "### static response, same bytes"
STA="$(run http://127.0.0.1:3901/en)"; echo "$STA"
# The same bytes from Debian's nginx (2 workers, keep-alive, sendfile), the
# server operators put in front (deploy/nginx/).
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$NGINX" ] || { apt-get update -qq && apt-get install -y -qq nginx >/dev/null; }
# nginx's workers run as nobody: the page must be readable to them (mktemp
# makes the directory private; nginx then answers 403, fast and wrong).
mkdir -p "$TMP/www/en" && cp "$TMP/page.html" "$TMP/www/en/index.html"
chmod 711 "$TMP" && chmod -R a+rX "$TMP/www"
cat > "$TMP/nginx.conf" <<NGINX_CONF
daemon off; worker_processes 2; pid $TMP/nginx.pid; error_log $TMP/nginx.err;
events { worker_connections 1024; }
http { access_log off; sendfile on; keepalive_requests 100000; default_type text/html;
  client_body_temp_path $TMP/b; proxy_temp_path $TMP/p; fastcgi_temp_path $TMP/f;
  uwsgi_temp_path $TMP/u; scgi_temp_path $TMP/s;
  server { listen 127.0.0.1:3903; root $TMP/www; location = /en { try_files /en/index.html =404; } } }
NGINX_CONF
"$NGINX" -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/nginx.err" & NGINX_PID=$!
trap 'kill $APP ${STATIC_PID:-} ${APP2:-} ${NGINX_PID:-} 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5
# Each server must answer the page itself, whole, before it is measured.
for PORT in 3900 3901 3903; do
  GOT="$(curl -s -o /dev/null -w '%{http_code} %{size_download}' "http://127.0.0.1:$PORT/en")"
  [[ "$GOT" == "200 $(wc -c < "$TMP/page.html")" ]] || { echo "port $PORT answered $GOT" >&2; exit 1; }
done
echo "### nginx, same bytes"
NGX="$(run http://127.0.0.1:3903/en)"; echo "$NGX"

# A run with errors measured the wrong thing.
for OUT in "$DYN" "$STA" "$NGX"; do
  if grep -q "Non-2xx" <<<"$OUT"; then echo "a run had error responses" >&2; exit 1; fi
done
rps() { awk '/Requests\/sec/ {print $2}' <<<"$1"; }
pct() { awk -v p="$2" '$1 == p {print $2}' <<<"$1"; }
echo
echo "| | req/s | p50 | p99 |"
echo "|---|---|---|---|"
echo "| storefront /en | $(rps "$DYN") | $(pct "$DYN" 50%) | $(pct "$DYN" 99%) |"
echo "| static bytes (axum) | $(rps "$STA") | $(pct "$STA" 50%) | $(pct "$STA" 99%) |"
echo "| static bytes (nginx) | $(rps "$NGX") | $(pct "$NGX" 50%) | $(pct "$NGX" 99%) |"
awk -v a="$(rps "$DYN")" -v b="$(rps "$STA")" -v n="$(rps "$NGX")" \
  'BEGIN {printf "ratio: %.2f of the axum static server, %.2f of nginx\n", a / b, a / n}'

# Exactness after load: a change made by another process shows at once.
cell() { curl -s "http://127.0.0.1:${1:-3900}/en" | grep -o 'data-site="fra" data-plan="g-l40s-x2" data-stock="[a-z-]*"' | sed 's/.*data-stock=//'; }
echo "stock check (Frankfurt G-L40S×2, 4 free): $(cell)"
for HOST in $("$BIN" hosts list --site fra --plan g-l40s-x2 --state free | awk 'NR>1 && NF>3 {print $1}'); do
  "$BIN" hosts set "$HOST" maintenance >/dev/null
  echo "  after taking $HOST out: $(cell)"
done

# Two replicas on the one database, both under load (32 connections each).
# Halfway through, an operator command (the same binary, a third process)
# frees the hosts again one at a time; after each commit the next request to
# either replica must show the new count.
"$BIN" --listen-addr 127.0.0.1:3902 & APP2=$!
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:3902/readyz >/dev/null && break; sleep 0.1; done
echo
echo "### two replicas, one database, $(cut -d' ' -f1-3 /proc/loadavg) load before"
wrk -t1 -c32 -d"${DURATION}s" --latency http://127.0.0.1:3900/en >"$TMP/a.txt" & WA=$!
wrk -t1 -c32 -d"${DURATION}s" --latency http://127.0.0.1:3902/en >"$TMP/b.txt" & WB=$!
sleep "$((DURATION / 2))"
for HOST in $("$BIN" hosts list --site fra --plan g-l40s-x2 --state maintenance | awk 'NR>1 && NF>3 {print $1}'); do
  "$BIN" hosts set "$HOST" free >/dev/null
  echo "  under load, after freeing $HOST: replica 2 $(cell 3902), replica 1 $(cell 3900)"
done
wait $WA $WB
A="$(cat "$TMP/a.txt")"; B="$(cat "$TMP/b.txt")"
echo "| | req/s | p50 | p99 |"
echo "|---|---|---|---|"
echo "| replica 1 /en | $(rps "$A") | $(pct "$A" 50%) | $(pct "$A" 99%) |"
echo "| replica 2 /en | $(rps "$B") | $(pct "$B" 50%) | $(pct "$B" 99%) |"
awk -v a="$(rps "$A")" -v b="$(rps "$B")" -v s="$(rps "$STA")" \
  'BEGIN {printf "together: %.0f req/s, %.2f of static throughput\n", a + b, (a + b) / s}'
