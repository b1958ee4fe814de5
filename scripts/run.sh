#!/usr/bin/env bash
# Sets up and runs the product on its embedded defaults: SQLite under
# ./data, development backends, demo inventory. Open http://127.0.0.1:3000
# Arguments go to the server (`bash scripts/run.sh --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# The server binary scripts/test.sh builds too: the same flags (setup.sh),
# features and profile, and no incremental cache (test.sh turns it off), so
# after the test command this build has nothing left to do.
export CARGO_INCREMENTAL=0
say "building the server"
cargo build -p server --bin server
say "building the site (CSS, wasm)"
bash scripts/build-site.sh
say "serving http://127.0.0.1:3000 (Ctrl-C stops)"
exec "$CARGO_TARGET_DIR/debug/server" "$@"
