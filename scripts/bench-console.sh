#!/usr/bin/env bash
# Benchmark: the console tunnel (server/tests/it/console_bench.rs). Opening a
# console, full VNC frames through the relay, and serial echo with many
# consoles open at once. Release build; figures in docs/BENCHMARKS.md.
#   bash scripts/bench-console.sh               # SQLite, 100 consoles
# BENCH_DB=postgres uses the PostgreSQL of the tests (TEST_POSTGRES_URL, or
# 127.0.0.1:5432/test); BENCH_CONSOLES sets how many serial consoles.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
export BENCH_DB="${BENCH_DB:-sqlite}" BENCH_CONSOLES="${BENCH_CONSOLES:-100}"
cargo test --release -p server --test it console_bench -- --ignored --nocapture --test-threads 1
