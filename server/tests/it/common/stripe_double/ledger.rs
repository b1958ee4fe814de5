//! What the double knows: every object as Stripe would answer a GET for
//! it, in creation order, plus the bookkeeping tests look at (requests,
//! accepted calls, idempotent answers, injected failures).

use super::fixture::{differences, shaped};
use super::http::Saved;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

/// A Checkout line as the double bills it, at Checkout and on renewals.
#[derive(Clone, Debug)]
pub(super) struct Line {
    pub price: String,
    pub quantity: u64,
    pub tax_rates: Vec<String>,
}

/// What a Checkout Session will start once paid.
#[derive(Clone, Debug, Default)]
pub(super) struct Plan {
    pub lines: Vec<Line>,
    pub subscription_metadata: serde_json::Map<String, Value>,
}

#[derive(Default)]
pub struct Ledger {
    /// A manual clock's time, when the test set one.
    pub(super) now: Option<i64>,
    counters: HashMap<&'static str, usize>,
    /// API creations by kind ("customer", "subscription.update", …).
    pub(super) created: HashMap<String, usize>,
    /// Path and form of every accepted, non-replayed POST/DELETE.
    pub(super) calls: Vec<(String, HashMap<String, String>)>,
    /// Path of every request received.
    pub(super) requests: Vec<String>,
    /// Injected failures still to answer: (status, how many).
    pub(super) failing: Option<(u16, usize)>,
    pub(super) failed: usize,
    /// Answers to requests under a path still to be lost after the work
    /// is done: (path prefix, how many).
    pub(super) losing: Option<(String, usize)>,
    /// First answers by Idempotency-Key.
    pub(super) answers: HashMap<String, Saved>,
    /// Checkout Sessions' lines and subscription metadata, by session id.
    pub(super) plans: HashMap<String, Plan>,
    /// Events Stripe sends because of API requests, not yet taken.
    pub(super) outbox: Vec<(String, String)>,
    /// The request being answered, which events it causes name.
    pub(super) request: Option<Value>,
    objects: Vec<Value>,
    index: HashMap<String, usize>,
    /// Answers and events that differed from Stripe's published shapes
    /// (`where: what`); the double's own bug, never our code's.
    pub(super) out_of_shape: Vec<String>,
    /// The Stripe-side happening being written: (its time, events so far).
    pub(super) happening: Option<(i64, i64)>,
    /// The newest event's `created`: Stripe's clock never runs back, so a
    /// later happening stamped with an earlier test time is not older.
    last_created: i64,
}

impl Ledger {
    pub fn now(&self) -> i64 {
        self.now.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        })
    }

    /// The next number for an id prefix ("cus", "in", "evt", …).
    pub(super) fn number(&mut self, prefix: &'static str) -> usize {
        let n = self.counters.entry(prefix).or_default();
        *n += 1;
        *n
    }

    pub(super) fn next_id(&mut self, prefix: &'static str) -> String {
        let n = self.number(prefix);
        format!("{prefix}_test_{n}")
    }

    pub(super) fn count(&mut self, kind: &str) {
        *self.created.entry(kind.to_owned()).or_default() += 1;
    }

    /// Stores a new object or replaces the one with its id, in the shape
    /// of Stripe's published example of its resource.
    pub(super) fn put(&mut self, object: Value) {
        let object = shaped(object);
        let id = object["id"].as_str().expect("objects have ids").to_owned();
        match self.index.get(&id) {
            Some(&at) => self.objects[at] = object,
            None => {
                self.index.insert(id, self.objects.len());
                self.objects.push(object);
            }
        }
    }

    /// Drops an object: Stripe no longer knows it.
    pub(super) fn forget(&mut self, id: &str) {
        if let Some(at) = self.index.remove(id) {
            self.objects[at] = Value::Null;
        }
    }

    pub fn get(&self, id: &str) -> Option<&Value> {
        self.index.get(id).map(|&at| &self.objects[at])
    }

    /// An object the test says exists; a wrong id is a broken test.
    pub(super) fn expect(&self, object: &str, id: &str) -> Value {
        match self.get(id) {
            Some(found) if found["object"] == object => found.clone(),
            _ => panic!("the Stripe double has no {object} {id}"),
        }
    }

    /// Objects of one type, newest first.
    pub(super) fn all(&self, object: &str) -> Vec<Value> {
        self.objects
            .iter()
            .rev()
            .filter(|o| o["object"] == object)
            .cloned()
            .collect()
    }

    /// Writes an event as Stripe sends it and answers (event id, body).
    pub(super) fn event(
        &mut self,
        kind: &str,
        object: &Value,
        previous: Option<Value>,
        api_version: &str,
        at: i64,
    ) -> (String, String) {
        let at = at.max(self.last_created);
        self.last_created = at;
        let id = self.next_id("evt");
        let mut data = json!({"object": shaped(object.clone())});
        if let Some(previous) = previous {
            data["previous_attributes"] = previous;
        }
        let event = json!({
            "id": id,
            "object": "event",
            "api_version": api_version,
            "created": at,
            "data": data,
            "livemode": false,
            "pending_webhooks": 1,
            "request": self.request.clone().unwrap_or(json!({"id": null, "idempotency_key": null})),
            "type": kind,
        });
        let event = shaped(event);
        // Events are written on the test's own thread: a wrong shape stops
        // the test here, naming the difference.
        let wrong = differences(&event, &[]);
        assert!(
            wrong.is_empty(),
            "event {kind} is not shaped like Stripe's: {wrong:?}"
        );
        let body = event.to_string();
        self.put(event);
        (id, body)
    }
}

impl Ledger {
    /// Whether the answer to a request for `path` is lost on its way
    /// back (one fewer to lose).
    pub(super) fn lose_answer(&mut self, path: &str) -> bool {
        match &mut self.losing {
            Some((prefix, left)) if *left > 0 && path.starts_with(prefix.as_str()) => {
                *left -= 1;
                true
            }
            _ => false,
        }
    }

    /// Records where an answer or event differs from Stripe's shapes.
    pub(super) fn check(&mut self, what: &str, value: &Value, expanded: &[String]) {
        for difference in differences(value, expanded) {
            self.out_of_shape.push(format!("{what}{difference}"));
        }
    }
}

/// The top-level attributes of `old` that `new` changed, as Stripe puts
/// them in an `*.updated` event's `previous_attributes`.
pub(super) fn changes(old: &Value, new: &Value) -> Option<Value> {
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else {
        return None;
    };
    let changed: serde_json::Map<String, Value> = new
        .iter()
        .filter(|(key, value)| old.get(*key) != Some(*value))
        .map(|(key, _)| (key.clone(), old.get(key).cloned().unwrap_or(Value::Null)))
        .collect();
    (!changed.is_empty()).then_some(Value::Object(changed))
}

/// One JSON object from several: `json!` literals as large as Stripe's
/// objects exceed the macro recursion limit.
pub(super) fn joined<const N: usize>(parts: [Value; N]) -> Value {
    let mut object = serde_json::Map::new();
    for part in parts {
        if let Value::Object(map) = part {
            object.extend(map);
        }
    }
    Value::Object(object)
}
