//! The commands the API page shows, shared by both languages: only their
//! `#` comments and the language asked for in `Accept-Language` differ.
//! Each example is a bash script that reads `api.sh` (the setup), so
//! `set -e` and `exit` never close a reader's interactive shell. Lines stay
//! short so a phone scrolls them little.

use domain::Lang;

use crate::i18n::api_docs::Comments;

/// `api.sh`: the token, the base address and the `api` helper the other
/// examples use.
pub fn setup(api: &str, lang: Lang, c: &Comments) -> String {
    let lang = lang.code();
    format!(
        r#"# api.sh
# {token}
export TOKEN='gpu_…'
export API='{api}'
# {stop}
set -euo pipefail
# {helper}
api() {{
  curl -sS --fail-with-body \
    -H "Authorization: Bearer $TOKEN" \
    -H "Accept-Language: {lang}" "$@"
}}"#,
        token = c.setup_token,
        stop = c.setup_stop,
        helper = c.setup_helper,
    )
}

/// What an order may name, a saved key, and the price with VAT.
pub fn compose_order(c: &Comments) -> String {
    format!(
        r#"{HEADER}# {choices}
api "$API/sites" | jq -r '.data[] | "\(.code) \(.city.en)"'
api "$API/images" | jq -r '.data[].id'
api "$API/add-ons" | jq -r '.data[] | .id'

# {key}
KEY_ID=$(jq -n --arg k "$(cat ~/.ssh/id_ed25519.pub)" \
    '{{public_key: $k}}' \
  | api -X POST "$API/ssh-keys" \
    -H 'Content-Type: application/json' -d @- \
  | jq -r '.id')

# {quote}
api -X POST "$API/quotes" \
  -H 'Content-Type: application/json' \
  -d '{{"plan": "g-l40s", "site": "fra",
       "addons": ["offsite-backup"]}}' \
  | jq '{{net_cents, vat, total_cents,
         available_now, sites_with_stock}}'"#,
        choices = c.compose_choices,
        key = c.compose_key,
        quote = c.compose_quote,
    )
}

/// A G-L40S in Frankfurt, then the server's progress until it runs.
pub fn order_and_wait(c: &Comments) -> String {
    format!(
        r#"{HEADER}# {place}
KEY=$(uuidgen)
api --retry 5 -X POST "$API/orders" \
  -H 'Content-Type: application/json' \
  -H "Idempotency-Key: $KEY" \
  -d '{{"plan": "g-l40s", "site": "fra",
       "name": "train-01", "image": "ubuntu-24.04",
       "ssh_keys": ["ssh-ed25519 AAAA… me@laptop"],
       "addons": []}}' > order.json
ORDER=$(jq -r '.id' order.json)
jq -r '.payment_url // empty' order.json

# {paid}
until SERVER=$(api "$API/orders/$ORDER" \
    | jq -er '.server_id'); do
  sleep 10
done

# {poll}
while :; do
  api "$API/servers/$SERVER" > server.json
  jq -r '"\(.state) \(.step // "") \(.progress)%"' server.json
  case $(jq -r '.state' server.json) in
    running) break ;;
    failed) exit 1 ;;
  esac
  sleep 10
done
# {address}
jq -r '.ipv4, .ipv6' server.json"#,
        place = c.order_place,
        paid = c.order_paid,
        poll = c.order_poll,
        address = c.order_address,
    )
}

/// A snapshot, the upgrade, and the way back.
pub fn snapshot_before_upgrade(c: &Comments) -> String {
    format!(
        r#"{HEADER}# {server}
SERVER='…'
IP=$(api "$API/servers/$SERVER" | jq -r '.ipv4')

# {wait}
wait_ready() {{
  while :; do
    LINE=$(api "$API/servers/$SERVER/snapshots/$SNAP" \
      | jq -r '"\(.state) \(.progress)%"')
    echo "$LINE"
    case $LINE in ready*) return ;; esac
    sleep 5
  done
}}

# {take}
SNAP=$(api -X POST "$API/servers/$SERVER/snapshots" \
  -H 'Content-Type: application/json' \
  -d '{{"name": "before-driver-upgrade"}}' \
  | jq -r '.id')
wait_ready

# {upgrade}
ssh root@"$IP" 'apt-get install -y nvidia-driver-570-server &&
  reboot' || true
sleep 90

# {restore}
if ! ssh root@"$IP" nvidia-smi; then
  api -X POST "$API/servers/$SERVER/snapshots/$SNAP/restore"
  wait_ready
fi"#,
        server = c.snapshot_server,
        wait = c.snapshot_wait,
        take = c.snapshot_take,
        upgrade = c.snapshot_upgrade,
        restore = c.snapshot_restore,
    )
}

/// Labels, a filtered list, a new root password taken once, a power off
/// and a reinstall.
pub fn manage_servers(c: &Comments) -> String {
    format!(
        r#"{HEADER}SERVER='…'
# {labels}
api -X PATCH "$API/servers/$SERVER" \
  -H 'Content-Type: application/json' \
  -d '{{"labels": {{"env": "prod", "team": "vision"}}}}' \
  > /dev/null

# {filter}
api "$API/servers?label=env=prod&state=running" \
  | jq -r '.data[] | "\(.name) \(.ipv4)"'

# {root}
api -X POST "$API/servers/$SERVER/root-password" > /dev/null
until api "$API/servers/$SERVER" \
    | jq -e '.root_password_waiting' > /dev/null; do
  sleep 5
done
api -X POST "$API/servers/$SERVER/root-password/take" \
  | jq -r '.password'

# {power}
api -X POST "$API/servers/$SERVER/power" \
  -H 'Content-Type: application/json' \
  -d '{{"action": "power_off"}}' | jq -r '.state'

# {reinstall}
api -X POST "$API/servers/$SERVER/reinstall" \
  -H 'Content-Type: application/json' \
  -d '{{"image": "debian-13"}}' | jq -r '.state'"#,
        labels = c.manage_labels,
        filter = c.manage_filter,
        root = c.manage_root,
        power = c.manage_power,
        reinstall = c.manage_reinstall,
    )
}

/// Stock for G-L40S in Frankfurt, printed only when it changed.
pub fn watch_stock(api: &str, c: &Comments) -> String {
    format!(
        r#"#!/bin/bash
set -euo pipefail
# {files}
DIR=${{XDG_CACHE_HOME:-$HOME/.cache}}/gpu-stock
mkdir -p "$DIR"
# {empty}
ETAG=$(cat "$DIR/etag" 2>/dev/null || true)
CODE=$(curl -sS -o "$DIR/body" -D "$DIR/headers" \
  -w '%{{http_code}}' -H "If-None-Match: $ETAG" \
  '{api}/stock?plan=g-l40s&site=fra')
case $CODE in
  200) # {changed}
    awk 'tolower($1) == "etag:" {{ print $2 }}' \
      "$DIR/headers" | tr -d '\r' > "$DIR/etag"
    jq -r '.data[]
      | "\(.plan) \(.site): \(.level) (\(.band))"' \
      "$DIR/body" ;;
  304) ;; # {same}
  *) echo "HTTP $CODE" >&2; exit 1 ;;
esac"#,
        files = c.watch_files,
        empty = c.watch_empty,
        changed = c.watch_changed,
        same = c.watch_same,
    )
}

/// A stock alert for G-L40S in Frankfurt (needs the `api` helper).
pub fn stock_alert(c: &Comments) -> String {
    format!(
        r#"{HEADER}# {mail}
api -X POST "$API/stock-alerts" \
  -H 'Content-Type: application/json' \
  -d '{{"plan": "g-l40s", "site": "fra"}}'"#,
        mail = c.alert_mail,
    )
}

/// The event feed from a saved cursor, a webhook endpoint, and checking
/// a delivery's signature.
pub fn events(c: &Comments) -> String {
    format!(
        r#"{HEADER}# {poll}
CURSOR=$(cat cursor 2>/dev/null || true)
while :; do
  PAGE=$(api "$API/events?cursor=$CURSOR")
  echo "$PAGE" | jq -r '.data[]
    | "\(.created_at) \(.type) \(.data.id)"'
  CURSOR=$(echo "$PAGE" | jq -r '.next_cursor')
  echo "$CURSOR" > cursor
  [ "$(echo "$PAGE" | jq -r '.has_more')" = true ] || break
done

# {endpoint}
api -X POST "$API/webhooks" \
  -H 'Content-Type: application/json' \
  -d '{{"url": "https://ops.example.com/gpu-hook",
       "events": ["server.*", "order.*"]}}' \
  | jq -r '.id, .secret'

# {verify}
# SIG: the Gpu-Signature header; BODY: the raw body
T=${{SIG#t=}}; T=${{T%%,*}}
WANT=$(printf '%s.%s' "$T" "$BODY" \
  | openssl dgst -sha256 -hmac "$SECRET" | cut -d' ' -f2)
case ",$SIG," in *",v1=$WANT,"*) echo ok ;; *) exit 1 ;; esac"#,
        poll = c.events_poll,
        endpoint = c.events_endpoint,
        verify = c.events_verify,
    )
}

/// Every server, page after page.
pub fn pagination(c: &Comments) -> String {
    format!(
        r#"{HEADER}# {all}
CURSOR=
while :; do
  PAGE=$(api "$API/servers?limit=100${{CURSOR:+&cursor=$CURSOR}}")
  echo "$PAGE" | jq -r '.data[] | "\(.id) \(.name) \(.state)"'
  CURSOR=$(echo "$PAGE" | jq -r '.next_cursor // empty')
  [ -n "$CURSOR" ] || break
done"#,
        all = c.pagination_loop,
    )
}

/// The first lines of every script that calls the API with a token.
const HEADER: &str = "#!/bin/bash\n. ./api.sh\n";

/// The shape of every error (RFC 9457), worded in the page's language:
/// `docs_url` is this page's address, where `type` points.
pub fn error_shape(docs_url: &str, title: &str, detail: &str) -> String {
    format!(
        r#"HTTP/1.1 403 Forbidden
Content-Type: application/problem+json
WWW-Authenticate: Bearer realm="api", error="insufficient_scope", scope="servers:write"
X-Request-Id: req_0192b3c4d5e6f7a8b9c0d1e2f3a4b5c6

{{
  "type": "{docs_url}#error-insufficient_scope",
  "title": "{title}",
  "status": 403,
  "detail": "{detail}",
  "code": "insufficient_scope",
  "request_id": "req_0192b3c4d5e6f7a8b9c0d1e2f3a4b5c6",
  "scope": "servers:write"
}}"#
    )
}

/// The rate-limit headers of an authenticated answer.
pub const RATE_HEADERS: &str = "X-RateLimit-Limit: 300
X-RateLimit-Remaining: 297
X-RateLimit-Reset: 42";
