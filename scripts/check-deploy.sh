#!/usr/bin/env bash
# Checks what operators install from deploy/: the environment template
# lists every server setting, the systemd unit and the nginx site parse
# (systemd-analyze verify, nginx -t), the Prometheus rules parse and pass
# their tests (promtool), and the dashboard is JSON over metric names the
# server exports. Installs Debian's nginx and prometheus (for promtool)
# if missing. Reports every failure, then exits non-zero if there was one.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
failed=0
fail() { printf 'check-deploy: %s\n' "$*" >&2; failed=1; }

NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
if [ ! -x "$NGINX" ] || ! command -v promtool >/dev/null; then
  say "installing Debian's nginx and prometheus (promtool)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends nginx prometheus >/dev/null
fi

TMP="$(mktemp -d /tmp/gpu-deploy.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

say "environment template: every setting in server/src/config.rs"
# A setting is listed as NAME=value, or #NAME=default when left commented.
grep -o 'env = "[A-Z0-9_]*"' server/src/config.rs | cut -d'"' -f2 | sort -u > "$TMP/settings"
sed -n 's/^#\{0,1\}\([A-Z][A-Z0-9_]*\)=.*/\1/p' deploy/env.example | sort -u > "$TMP/listed"
[ -s "$TMP/settings" ] || fail "no env = \"…\" found in server/src/config.rs"
for name in $(comm -23 "$TMP/settings" "$TMP/listed"); do
  fail "deploy/env.example does not list $name (server/src/config.rs)"
done
for name in $(comm -13 "$TMP/settings" "$TMP/listed"); do
  fail "deploy/env.example sets $name, which the server does not read"
done

say "systemd unit (systemd-analyze verify)"
if command -v systemd-analyze >/dev/null; then
  # As an instance, with a binary that exists here; any warning fails.
  mkdir "$TMP/unit"
  sed 's#/opt/gpu-storefront/current/server#/bin/true#' deploy/gpu-storefront@.service \
    > "$TMP/unit/gpu-storefront@3001.service"
  if ! out="$(systemd-analyze verify "$TMP/unit/gpu-storefront@3001.service" 2>&1)" || [ -n "$out" ]; then
    fail "deploy/gpu-storefront@.service: ${out:-systemd-analyze verify failed}"
  fi
else
  echo "systemd-analyze not found: unit not checked" >&2
fi

say "nginx site (nginx -t)"
# A throwaway certificate and a main configuration that includes the site
# inside http, as Debian's nginx.conf does with sites-enabled. nginx -t
# binds the listen ports and opens the logs: ports 80 and 443 become 18080
# and 18443 and every path nginx writes is in the temporary folder, so no
# root is needed.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=portal.example.com -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null
sed -e "s#/etc/ssl/certs/gpu-storefront.pem#$TMP/cert.pem#" \
    -e "s#/etc/ssl/private/gpu-storefront.key#$TMP/key.pem#" \
    -e "s#/var/log/nginx/#$TMP/#" \
    -E -e 's/(listen (\[::\]:)?)80;/\118080;/' -e 's/(listen (\[::\]:)?)443 /\118443 /' \
    deploy/nginx/gpu-storefront.conf > "$TMP/site.conf"
cat > "$TMP/nginx.conf" <<EOF
events {}
http {
    access_log $TMP/access.log;
    client_body_temp_path $TMP/body;
    proxy_temp_path $TMP/proxy;
    fastcgi_temp_path $TMP/fastcgi;
    uwsgi_temp_path $TMP/uwsgi;
    scgi_temp_path $TMP/scgi;
    include $TMP/site.conf;
}
EOF
if ! "$NGINX" -t -q -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" -g "pid $TMP/nginx.pid;"; then
  fail "deploy/nginx/gpu-storefront.conf: nginx -t failed"
fi

say "Prometheus rules and scrape job (promtool)"
# Quiet when they pass; their whole output when they don't.
promtool_check() {
  local out
  out="$(promtool "$@" 2>&1)" || { printf '%s\n' "$out" >&2; fail "promtool $* failed"; }
}
promtool_check check rules deploy/prometheus/alerts.yml
promtool_check test rules deploy/prometheus/alerts.test.yml
promtool_check check config deploy/prometheus/scrape.yml

say "Grafana dashboard, and the metric names of rules and panels"
python3 -m json.tool deploy/grafana/gpu-storefront.json >/dev/null ||
  fail "deploy/grafana/gpu-storefront.json is not JSON"
# Exported names: each registry.register(name, help, field) in
# server/src/metrics.rs, with the registry's prefix and the suffixes its
# field's type gets on /metrics (counter _total; histogram _bucket/_sum/_count).
python3 - <<'EOF' || failed=1
import json, re, sys

src = open("server/src/metrics.rs").read()
prefix = re.search(r'Registry::with_prefix\("(\w+)"\)', src).group(1)
kinds = dict(re.findall(r"pub (\w+): (?:Family<\w+, )?(Counter|Gauge|Histogram)\b", src))
suffixes = {"Counter": ["_total"], "Gauge": [""], "Histogram": ["_bucket", "_sum", "_count"]}
exported = set()
for name, field in re.findall(r'register\(\s*"(\w+)",\s*"(?:[^"\\]|\\.)*",\s*(\w+)\.clone\(\)', src):
    exported |= {f"{prefix}_{name}{s}" for s in suffixes[kinds[field]]}
if not exported:
    sys.exit("check-deploy: no metric registrations found in server/src/metrics.rs")

used = {}  # name -> files using it
def scan(text, where):
    for name in re.findall(r"\b" + prefix + r"_[a-z0-9_]+", text):
        used.setdefault(name, set()).add(where)
scan(open("deploy/prometheus/alerts.yml").read(), "deploy/prometheus/alerts.yml")
dashboard = json.load(open("deploy/grafana/gpu-storefront.json"))
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        scan(target.get("expr", ""), "deploy/grafana/gpu-storefront.json")

bad = False
for name in sorted(used):
    if name not in exported:
        files = ", ".join(sorted(used[name]))
        print(f"check-deploy: {files} uses {name}, which server/src/metrics.rs does not export", file=sys.stderr)
        bad = True
sys.exit(1 if bad else 0)
EOF

if [ "$failed" != 0 ]; then
  say "deploy/ checks FAILED"
  exit 1
fi
say "deploy/ checks passed"
