#!/usr/bin/env bash
# Installs what building the product needs, skipping what is already there
# (a second run takes seconds). Source it to get PATH and CARGO_TARGET_DIR:
#   source scripts/setup.sh
# Needs: a Rust toolchain (rustup), Node.js with npm, and Debian's apt for
# the optional browser packages (installed by scripts/test.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${GPU_CACHE_DIR:-$HOME/.cache/gpu-storefront}"
# Dependencies built once are reused by every clone on this machine (CI
# runs in a fresh clone each time).
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE/target}"
# cargo-leptos builds with this cfg in debug; cargo test and clippy use the
# same flags so they share one set of compiled dependencies.
# Set, not appended to: a different flag string means a second full set of
# artifacts in the shared target directory.
export RUSTFLAGS="--cfg erase_components"
export PATH="$HOME/.cargo/bin:$CACHE/tools/node_modules/.bin:$PATH"
mkdir -p "$CACHE/tools"

# Each step says when it starts, in seconds since the command began: where
# a fresh machine's minutes go (docs/BENCHMARKS.md, "The two commands").
export GPU_STARTED_AT="${GPU_STARTED_AT:-$(date +%s)}"
say() { printf '\033[1m==> [%4ss] %s\033[0m\n' "$(( $(date +%s) - GPU_STARTED_AT ))" "$*" >&2; }

command -v cargo >/dev/null || { echo "cargo not found: install Rust with rustup first" >&2; exit 1; }
command -v npm >/dev/null || {
  say "installing Node.js and npm (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
}

# The font embedded (as a subset) in invoice PDFs: Latin and CJK glyphs in
# one TrueType collection (DEFAULT_FONT in backend/src/billing/pdf.rs).
if [ ! -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ]; then
  say "installing fonts-wqy-microhei (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei
fi

if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  say "adding the wasm32 target"
  rustup target add wasm32-unknown-unknown
fi

# The site's wasm glue (scripts/build-site.sh): wasm-bindgen-cli at exactly
# the version the lockfile pins (the glue and the library must match).
WBG="$(grep -A1 '^name = "wasm-bindgen"$' "$ROOT/Cargo.lock" | sed -n 's/^version = "\(.*\)"/\1/p')"
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WBG"; then
  say "installing wasm-bindgen-cli $WBG"
  cargo install wasm-bindgen-cli --version "$WBG"
fi

# wasm-opt from npm's binaryen (Debian's 108 breaks hydration silently).
if ! "$CACHE/tools/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "132"; then
  say "installing binaryen 132 (wasm-opt) from npm"
  (cd "$CACHE/tools" && { [ -f package.json ] || echo '{"private":true}' > package.json; } \
    && npm install --no-audit --no-fund binaryen@132.0.0 >/dev/null)
fi

# The consoles' browser libraries, pinned in vendor/package-lock.json and
# served from our own origin (CSP allows no third-party scripts): xterm.js
# for the serial console, noVNC (ES modules) for the graphical one.
VENDOR_STAMP="$(sha256sum "$ROOT/vendor/package-lock.json" | cut -c1-16)"
if [ "$(cat "$ROOT/public/vendor/.stamp" 2>/dev/null)" != "$VENDOR_STAMP" ]; then
  say "installing the console libraries (xterm.js, noVNC) from npm"
  rm -rf "$CACHE/vendor" && mkdir -p "$CACHE/vendor"
  cp "$ROOT/vendor/package.json" "$ROOT/vendor/package-lock.json" "$CACHE/vendor/"
  (cd "$CACHE/vendor" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
  NM="$CACHE/vendor/node_modules"
  rm -rf "$ROOT/public/vendor" && mkdir -p "$ROOT/public/vendor/xterm" "$ROOT/public/vendor/novnc"
  cp "$NM/@xterm/xterm/lib/xterm.js" "$NM/@xterm/xterm/css/xterm.css" "$NM/@xterm/xterm/LICENSE" \
    "$ROOT/public/vendor/xterm/"
  cp "$NM/@xterm/addon-fit/lib/addon-fit.js" "$ROOT/public/vendor/xterm/"
  cp -r "$NM/@novnc/novnc/core" "$NM/@novnc/novnc/vendor" "$NM/@novnc/novnc/LICENSE.txt" \
    "$ROOT/public/vendor/novnc/"
  echo "$VENDOR_STAMP" > "$ROOT/public/vendor/.stamp"
fi
