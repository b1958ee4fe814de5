//! The EU's VIES REST API as far as the product uses it
//! (`POST …/check-vat-number`), with answers a test sets per VAT ID and
//! changes while the application runs. Unknown IDs are not registered.

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the VIES double answers for one VAT ID.
#[derive(Clone, Debug)]
pub enum Reply {
    Valid(Option<&'static str>),
    Invalid,
    /// A `userError` that means VIES had no answer (MS_UNAVAILABLE, …).
    NoAnswer(&'static str),
    /// An HTTP error with VIES's error body.
    Status(u16),
    /// Answers valid, but only after this long.
    Slow(Duration),
}

/// A VIES double listening on a loopback port.
#[derive(Clone)]
pub struct ViesDouble {
    /// The API's base, as `VIES_URL` takes it.
    pub url: String,
    replies: Arc<Mutex<HashMap<String, Reply>>>,
    /// Every request body, in order.
    pub asked: Arc<Mutex<Vec<Value>>>,
}

impl ViesDouble {
    pub async fn start() -> ViesDouble {
        let double = ViesDouble {
            url: String::new(),
            replies: Arc::default(),
            asked: Arc::default(),
        };
        let router = Router::new()
            .route("/rest-api/check-vat-number", post(answer))
            .with_state(double.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the VIES double");
        let port = listener.local_addr().expect("its port").port();
        tokio::spawn(async move { axum::serve(listener, router).await });
        ViesDouble {
            url: format!("http://127.0.0.1:{port}/rest-api"),
            ..double
        }
    }

    pub fn set(&self, vat_id: &str, reply: Reply) {
        self.replies
            .lock()
            .expect("replies")
            .insert(vat_id.to_owned(), reply);
    }

    /// How many checks it answered.
    pub fn asked(&self) -> usize {
        self.asked.lock().expect("requests").len()
    }
}

async fn answer(
    State(double): State<ViesDouble>,
    Json(request): Json<Value>,
) -> (http::StatusCode, Json<Value>) {
    double.asked.lock().expect("requests").push(request.clone());
    let country = request["countryCode"].as_str().unwrap_or_default();
    let number = request["vatNumber"].as_str().unwrap_or_default();
    let reply = double
        .replies
        .lock()
        .expect("replies")
        .get(&format!("{country}{number}"))
        .cloned()
        .unwrap_or(Reply::Invalid);
    let ok = http::StatusCode::OK;
    let base = |valid: bool, name: &str, user_error: &str| {
        json!({
            "countryCode": country, "vatNumber": number, "requestDate": "2026-11-30+01:00",
            "valid": valid, "requestIdentifier": "", "name": name, "address": "---",
            "userError": user_error,
        })
    };
    match reply {
        Reply::Valid(name) => (ok, Json(base(true, name.unwrap_or("---"), "VALID"))),
        Reply::Invalid => (ok, Json(base(false, "---", "INVALID"))),
        Reply::NoAnswer(error) => (ok, Json(base(false, "---", error))),
        Reply::Status(status) => (
            http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR),
            Json(json!({
                "actionSucceed": false,
                "errorWrappers": [{ "error": "SERVICE_UNAVAILABLE", "message": "try later" }],
            })),
        ),
        Reply::Slow(delay) => {
            tokio::time::sleep(delay).await;
            (ok, Json(base(true, "---", "VALID")))
        }
    }
}
