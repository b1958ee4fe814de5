#!/usr/bin/env bash
# Makes sure a PostgreSQL server is reachable for the tests. Source it.
# Uses TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test);
# if nothing answers there, starts a throwaway server from installed
# binaries (installing Debian's postgresql first if needed and possible)
# and exports TEST_POSTGRES_URL pointing at it. Stop it with pg_throwaway_stop.

export TEST_POSTGRES_URL="${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/test}"
PG_THROWAWAY_DIR=""

pg_reachable() {
  command -v psql >/dev/null && psql "$1" -qtAc 'select 1' >/dev/null 2>&1
}

pg_throwaway_stop() {
  if [ -n "$PG_THROWAWAY_DIR" ]; then
    local run=(); [ "$(id -u)" = 0 ] && run=(runuser -u postgres --)
    "${run[@]}" "$PG_BIN/pg_ctl" -D "$PG_THROWAWAY_DIR/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$PG_THROWAWAY_DIR"
  fi
}

if pg_reachable "$TEST_POSTGRES_URL"; then
  echo "PostgreSQL: using $TEST_POSTGRES_URL" >&2
else
  echo "PostgreSQL: nothing answers at $TEST_POSTGRES_URL; starting a throwaway server" >&2
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  if [ -z "$PG_BIN" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "PostgreSQL: installing Debian's postgresql" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  fi
  [ -n "$PG_BIN" ] || { echo "PostgreSQL: no server binaries and none installable" >&2; return 1 2>/dev/null || exit 1; }
  PG_THROWAWAY_DIR="$(mktemp -d /tmp/gpu-pg.XXXXXX)"
  PG_PORT=55432
  while (echo > /dev/tcp/127.0.0.1/$PG_PORT) 2>/dev/null; do PG_PORT=$((PG_PORT + 1)); done
  run=(); [ "$(id -u)" = 0 ] && { chown postgres "$PG_THROWAWAY_DIR"; run=(runuser -u postgres --); }
  "${run[@]}" "$PG_BIN/initdb" -D "$PG_THROWAWAY_DIR/data" -U postgres -A trust >/dev/null
  "${run[@]}" "$PG_BIN/pg_ctl" -D "$PG_THROWAWAY_DIR/data" -l "$PG_THROWAWAY_DIR/log" -w \
    -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_THROWAWAY_DIR" start >/dev/null
  "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres test
  export TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$PG_PORT/test"
  echo "PostgreSQL: throwaway server at $TEST_POSTGRES_URL" >&2
fi

# Test schemas left behind by interrupted runs.
psql "$TEST_POSTGRES_URL" -qtAc "select string_agg(format('drop schema %I cascade;', nspname), ' ') from pg_namespace where nspname like 't\_%'" 2>/dev/null \
  | psql "$TEST_POSTGRES_URL" -q >/dev/null 2>&1 || true
