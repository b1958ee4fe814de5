#!/usr/bin/env bash
# Sets up and runs the product on its embedded defaults: SQLite under
# ./data, development backends, demo inventory. Open http://127.0.0.1:3000
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# cargo-leptos builds the server and the site (CSS, assets, wasm) and runs it.
exec cargo leptos serve "$@"
