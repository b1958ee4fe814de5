//! What every operation shares, added to the document in one place rather
//! than on each handler: the errors the guard, the body reader, the path
//! reader, the pager and `Idempotency-Key` answer, the headers every answer
//! carries, and `application/problem+json` for every error. A status a
//! handler documents itself keeps its own description.

use serde_json::{json, Map, Value};

/// Adds the shared parts to every operation of `document`.
pub fn complete(document: &mut Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in item.iter_mut() {
            if let Some(operation) = operation.as_object_mut() {
                complete_operation(path, method, operation);
            }
        }
    }
    document["components"]["headers"] = headers();
}

fn complete_operation(path: &str, method: &str, operation: &mut Map<String, Value>) {
    let secured = operation.get("security").is_some_and(|s| !s.is_null());
    let has_body = operation.contains_key("requestBody");
    let writes = matches!(method, "post" | "patch") && secured;
    let paged = operation
        .get("parameters")
        .and_then(Value::as_array)
        .is_some_and(|ps| ps.iter().any(|p| p["name"] == "limit"));
    let mut add: Vec<(&str, &str)> = Vec::new();
    if secured {
        add.push(("401", "No token, or one that no longer works (`unauthorized`, `token_expired`, `token_revoked`, `token_creator_lost_role`)"));
        add.push((
            "403",
            "The token lacks the scope (`insufficient_scope`, with `scope`)",
        ));
        add.push((
            "429",
            "Over the token's rate limit (`rate_limited`): retry after `Retry-After` seconds",
        ));
    }
    if path.contains('{') {
        add.push((
            "404",
            "No such object, or one of another organization (`not_found`)",
        ));
    }
    if paged {
        add.push((
            "400",
            "`limit` outside 1–100 (`bad_request`) or a bad cursor (`invalid_cursor`)",
        ));
    }
    if has_body {
        add.push(("400", "The body is not one JSON object (`malformed_body`)"));
        add.push(("413", "The body is too large (`too_large`)"));
        add.push((
            "415",
            "The body is not `application/json` (`unsupported_media_type`)",
        ));
        add.push((
            "422",
            "A field is missing, of the wrong type or unknown (`invalid`)",
        ));
    }
    if writes {
        add.push((
            "400",
            "A malformed `Idempotency-Key` (`idempotency_key_required`)",
        ));
        // The body is read (to fingerprint it) even where none is expected.
        add.push(("413", "The body is too large (`too_large`)"));
        add.push((
            "409",
            "A request with this `Idempotency-Key` is still running (`idempotency_key_in_use`)",
        ));
        add.push((
            "422",
            "This `Idempotency-Key` was used for another request (`idempotency_key_reused`)",
        ));
        idempotency_parameter(operation);
    }
    add.push((
        "500",
        "A fault of ours, logged under the `request_id` (`internal`)",
    ));
    add.push((
        "503",
        "Briefly unavailable (`unavailable`): retry after `Retry-After` seconds",
    ));

    let responses = operation
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("responses is an object");
    for (status, description) in add {
        match responses.get_mut(status) {
            // Documented by the handler: one more cause.
            Some(known) => {
                let text = known["description"].as_str().unwrap_or_default();
                if !text.contains(description) {
                    known["description"] = Value::from(join(text, description));
                }
            }
            None => {
                responses.insert(status.to_owned(), json!({ "description": description }));
            }
        }
    }
    if secured && method == "get" {
        revalidated(responses, paged);
    }
    for (status, response) in responses.iter_mut() {
        shape(status, response, secured);
    }
}

/// A token `GET`'s 200 has an `ETag` (and a list's, when there is a next
/// page, `Link`); the same `If-None-Match` gets a bodiless 304.
fn revalidated(responses: &mut Map<String, Value>, paged: bool) {
    let reference = |name: &str| json!({ "$ref": format!("#/components/headers/{name}") });
    if let Some(ok) = responses.get_mut("200") {
        // A PDF is not revalidated (it redirects or streams).
        let json = ok["content"].get("application/json").is_some();
        if !json {
            return;
        }
        ok["headers"]["ETag"] = reference("ETag");
        ok["headers"]["Cache-Control"] = reference("Cache-Control");
        if paged {
            ok["headers"]["Link"] = reference("Link");
        }
    }
    responses.entry("304").or_insert_with(|| {
        json!({
            "description": "Unchanged since the `ETag` sent in `If-None-Match`: no body",
            "headers": { "ETag": reference("ETag") }
        })
    });
}

fn join(known: &str, more: &str) -> String {
    match known {
        "" => more.to_owned(),
        known => format!("{known}; {more}"),
    }
}

/// Errors are problem documents; every answer names its request; a token's
/// answers carry its rate limit; 429 and 503 say when to retry.
fn shape(status: &str, response: &mut Value, secured: bool) {
    let error = status.starts_with('4') || status.starts_with('5');
    if error {
        response["content"] = json!({
            "application/problem+json": { "schema": { "$ref": "#/components/schemas/ErrorBody" } }
        });
    }
    let headers = response
        .as_object_mut()
        .expect("a response is an object")
        .entry("headers")
        .or_insert_with(|| json!({}));
    let reference = |name: &str| json!({ "$ref": format!("#/components/headers/{name}") });
    headers["X-Request-Id"] = reference("X-Request-Id");
    if secured && status != "401" && status != "403" {
        for name in [
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
        ] {
            headers[name] = reference(name);
        }
    }
    if status == "429" || status == "503" {
        headers["Retry-After"] = reference("Retry-After");
    }
    if status == "401" || status == "403" {
        headers["WWW-Authenticate"] = reference("WWW-Authenticate");
    }
}

/// `Idempotency-Key` on a write that does not document it itself (orders
/// require it and say so).
fn idempotency_parameter(operation: &mut Map<String, Value>) {
    let parameters = operation
        .entry("parameters")
        .or_insert_with(|| json!([]))
        .as_array_mut()
        .expect("parameters is an array");
    let known = parameters.iter().any(|p| p["name"] == "Idempotency-Key");
    if !known {
        parameters.push(json!({
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": "Makes a retry safe: a request repeated with the same key and body gets the first answer back (with `Idempotent-Replayed: true`) instead of running again. Kept for 24 hours, per member.",
            "schema": { "type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[\\x20-\\x7E]+$" }
        }));
    }
}

fn headers() -> Value {
    let integer = |description: &str| json!({ "description": description, "schema": { "type": "integer", "minimum": 0 } });
    json!({
        "X-Request-Id": {
            "description": "Names this request in our logs (also `request_id` in error bodies); a proxy's own id of 8–64 letters, digits, `-` or `_` is kept.",
            "schema": { "type": "string" }
        },
        "X-RateLimit-Limit": integer("Requests this token may make per minute."),
        "X-RateLimit-Remaining": integer("Requests left in the current minute."),
        "X-RateLimit-Reset": integer("Seconds until the current minute's window ends."),
        "Retry-After": integer("Seconds to wait before retrying."),
        "ETag": {
            "description": "Weak; send it back in `If-None-Match` to get a bodiless 304 while the answer is the same.",
            "schema": { "type": "string" }
        },
        "Cache-Control": {
            "description": "`private, no-cache`: a cache may keep the answer for this token only and must revalidate it.",
            "schema": { "type": "string" }
        },
        "Link": {
            "description": "RFC 8288 `<…>; rel=\"next\"`: the next page's absolute address. Only when there is one.",
            "required": false,
            "schema": { "type": "string" }
        },
        "WWW-Authenticate": {
            "description": "RFC 6750: `Bearer realm=\"api\"`, with `error=\"invalid_token\"` for a token that no longer works or `error=\"insufficient_scope\", scope=\"…\"`.",
            "schema": { "type": "string" }
        }
    })
}
