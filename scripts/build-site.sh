#!/usr/bin/env bash
# Builds the site the browser loads (target/site): the hydration wasm and its
# JavaScript glue, the stylesheet and the static assets. The same steps as
# `cargo leptos build --frontend-only` (cargo-leptos 0.3.10, src/compile/
# front.rs), without installing cargo-leptos: building it from source took
# 15 of the 42 minutes of a fresh test run on 2 cores. cargo-leptos stays
# the tool for `cargo leptos watch` while developing (README).
#   bash scripts/build-site.sh            # debug wasm, as the tests use
#   bash scripts/build-site.sh --release  # wasm-release profile + wasm-opt
# Expects scripts/setup.sh to have been sourced (CARGO_TARGET_DIR, PATH,
# wasm-bindgen and wasm-opt installed).
set -euo pipefail
cd "$(dirname "$0")/.."

NAME=gpu-storefront # [workspace.metadata.leptos] name = output name
SITE=target/site
PKG="$SITE/pkg"
PROFILE_ARGS=() PROFILE_DIR=debug RELEASE=false
if [ "${1:-}" = "--release" ]; then
  PROFILE_ARGS=(--profile wasm-release) PROFILE_DIR=wasm-release RELEASE=true
fi

# The wasm, with the environment cargo-leptos gives a front-end build (the
# leptos crates read LEPTOS_* at compile time). Debug builds type-erase
# components as cargo-leptos does; release builds do not.
if [ "$RELEASE" = true ]; then
  FRONT_RUSTFLAGS=""
else
  FRONT_RUSTFLAGS="--cfg erase_components"
fi
RUSTFLAGS="$FRONT_RUSTFLAGS" \
  LEPTOS_OUTPUT_NAME="$NAME" LEPTOS_SITE_ROOT="$SITE" LEPTOS_SITE_PKG_DIR=pkg \
  LEPTOS_SITE_ADDR=127.0.0.1:3000 LEPTOS_RELOAD_PORT=3001 LEPTOS_LIB_DIR=frontend \
  LEPTOS_BIN_DIR=server LEPTOS_JS_MINIFY="$RELEASE" LEPTOS_HASH_FILES=false \
  cargo build --package=frontend --lib --target=wasm32-unknown-unknown "${PROFILE_ARGS[@]}"

rm -rf "$SITE" && mkdir -p "$PKG"
wasm-bindgen --target=web --no-typescript --out-name="$NAME" --out-dir="$PKG" \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/$PROFILE_DIR/frontend.wasm"
# Leptos's hydration script asks for NAME.wasm, not wasm-bindgen's NAME_bg.wasm.
mv "$PKG/${NAME}_bg.wasm" "$PKG/$NAME.wasm"
if [ "$RELEASE" = true ]; then
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    "$PKG/$NAME.wasm" -o "$PKG/$NAME.wasm"
fi

# The stylesheet as written: plain CSS for current browsers, nothing to
# prefix or compile (cargo-leptos would also minify it in release; gzip on
# the wire makes the difference small).
cp style/main.css "$PKG/$NAME.css"
# Static assets (icons, the consoles' scripts and vendor libraries).
cp -r public/. "$SITE/"
echo "site built in $SITE ($(du -sh "$SITE" | cut -f1))"
