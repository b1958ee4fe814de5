//! Stripe's own example objects (`openapi/fixtures3.json` of the public
//! `stripe/openapi` repository, kept in `server/tests/fixtures/stripe/`
//! with its commit id) as the mould of everything the double stores,
//! answers and sends: an object starts as a copy of its resource's fixture
//! and the scenario sets ids, amounts, links, statuses and times. A key
//! the fixture lacks is never added (an invoice's `payments` and a
//! customer's `tax_ids` are includable: only `expand[]` brings them), so
//! the double cannot agree with our code where Stripe does not.

use serde_json::{Map, Value};
use std::sync::OnceLock;

const FIXTURES: &str = include_str!("../../../fixtures/stripe/fixtures3.json");

/// Keys Stripe answers only when an object is created, so its published
/// example (a retrieval) lacks them: a webhook endpoint's signing secret.
const ON_CREATION_ONLY: &[(&str, &str)] = &[("webhook_endpoint", "secret")];

fn on_creation_only(object: &Value, key: &str) -> bool {
    ON_CREATION_ONLY
        .iter()
        .any(|(o, k)| object == *o && key == *k)
}

fn resources() -> &'static Map<String, Value> {
    static PARSED: OnceLock<Map<String, Value>> = OnceLock::new();
    PARSED.get_or_init(|| {
        let all: Value = serde_json::from_str(FIXTURES).expect("Stripe's fixtures3.json parses");
        all["resources"]
            .as_object()
            .cloned()
            .expect("fixtures3.json has resources")
    })
}

/// The published example of a resource, by its `object` name
/// ("invoice", "checkout.session", …).
pub fn fixture(object: &str) -> Option<&'static Map<String, Value>> {
    resources().get(object).and_then(Value::as_object)
}

/// The resource an object is an instance of, if Stripe publishes one
/// (lists and `deleted` stubs are not resources of their own).
fn resource_of(value: &Map<String, Value>) -> Option<&'static Map<String, Value>> {
    if value.get("deleted") == Some(&Value::Bool(true)) {
        return None;
    }
    value
        .get("object")
        .and_then(Value::as_str)
        .and_then(fixture)
}

/// `scenario` laid over a copy of its resource's fixture, nested
/// resources (items, lines, prices, refunds) too. A key the fixture lacks
/// is a broken double, not a test failure of our code: it panics naming
/// the key.
pub fn shaped(scenario: Value) -> Value {
    match scenario {
        Value::Object(map) => {
            let mut out = match resource_of(&map) {
                Some(fixture) => fixture.clone(),
                None => Map::new(),
            };
            let strict = resource_of(&map).is_some();
            for (key, value) in map {
                assert!(
                    !strict || out.contains_key(&key) || on_creation_only(&out["object"], &key),
                    "Stripe's published {} has no `{key}`",
                    out["object"]
                );
                out.insert(key, shaped(value));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(shaped).collect()),
        other => other,
    }
}

/// Where `value` differs in keys from the fixtures, as `path: what`
/// (empty: it could have come from Stripe). `expanded` names keys a
/// request asked for with `expand[]`, allowed beyond the fixture.
pub fn differences(value: &Value, expanded: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    walk(value, "", expanded, &mut found);
    found
}

fn walk(value: &Value, path: &str, expanded: &[String], found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(fixture) = resource_of(map) {
                let object = map["object"].as_str().unwrap_or_default();
                for key in map.keys() {
                    if !fixture.contains_key(key)
                        && !expanded.iter().any(|e| e == key)
                        && !on_creation_only(&map["object"], key)
                    {
                        found.push(format!("{path}: {object} has `{key}`, Stripe's has not"));
                    }
                }
                for key in fixture.keys() {
                    if !map.contains_key(key) {
                        found.push(format!("{path}: {object} lacks `{key}`"));
                    }
                }
            }
            for (key, child) in map {
                // A list's items are what `expand[]=data.…` expanded.
                let inherited = if key == "data" { expanded } else { &[] };
                walk(child, &format!("{path}.{key}"), inherited, found);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &format!("{path}[{i}]"), expanded, found);
            }
        }
        _ => {}
    }
}
