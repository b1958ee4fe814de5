//! Every API answer the suite receives is held against the OpenAPI
//! document the server publishes (`/api/v1/openapi.json`, the same value):
//! its status must be one the operation lists, its content type one listed
//! for that status, its JSON body valid against the listed schema, and the
//! headers the document promises for it present. So the document cannot
//! drift from what the code does: a test that meets an undocumented
//! answer fails, naming it.

use serde_json::Value;

/// Checks one answer; panics with what disagrees.
pub fn check(
    method: &str,
    uri: &str,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
) {
    if let Err(problem) = disagreement(method, uri, status, headers, body) {
        panic!(
            "{method} {uri} answered {status}, which /api/v1/openapi.json does not describe: {problem}\nbody: {body:.400}"
        );
    }
}

fn disagreement(
    method: &str,
    uri: &str,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
) -> Result<(), String> {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    if !path.starts_with("/api/v1/") {
        return Ok(());
    }
    let document = server::http::api::openapi::full();
    let Some((template, item)) = operation_path(document, path) else {
        // Not a path of the API: the one answer is a problem 404.
        return expect_problem(document, status, 404, headers, body);
    };
    let Some(operation) = item.get(method.to_lowercase()) else {
        if method == "HEAD" && item.get("get").is_some() {
            return Ok(());
        }
        expect_problem(document, status, 405, headers, body)?;
        return match headers.get("allow") {
            Some(_) => Ok(()),
            None => Err(format!("405 for {template} without Allow")),
        };
    };
    let responses = &operation["responses"];
    let Some(response) = responses.get(status.to_string()) else {
        let listed: Vec<&String> = responses
            .as_object()
            .map(|r| r.keys().collect())
            .unwrap_or_default();
        return Err(format!(
            "{} {template} lists {listed:?}",
            method.to_uppercase()
        ));
    };
    for (name, header) in response["headers"].as_object().into_iter().flatten() {
        // A header documented as optional (`Link`: only with a next page).
        let header = match header["$ref"].as_str() {
            Some(r) => {
                &document["components"]["headers"][r.trim_start_matches("#/components/headers/")]
            }
            None => header,
        };
        if header["required"] == false {
            continue;
        }
        if !headers.contains_key(name.as_str()) {
            return Err(format!("the header {name} is documented but missing"));
        }
    }
    let content_type = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or_default().trim().to_owned());
    let Some(content) = response["content"].as_object() else {
        return match content_type {
            Some(ct) if !body.is_empty() => Err(format!("a {ct} body where none is documented")),
            _ => Ok(()),
        };
    };
    let content_type = content_type.unwrap_or_default();
    let Some(media) = content.get(&content_type) else {
        let listed: Vec<&String> = content.keys().collect();
        return Err(format!(
            "content type {content_type:?}, documented {listed:?}"
        ));
    };
    if content_type.ends_with("json") {
        let value: Value =
            serde_json::from_str(body).map_err(|e| format!("the body is not JSON: {e}"))?;
        if let Some(schema) = media.get("schema") {
            valid(document, schema, &value, "$")?;
        }
    }
    Ok(())
}

/// The documented path `path` is an instance of: literal segments first.
fn operation_path<'a>(document: &'a Value, path: &str) -> Option<(&'a str, &'a Value)> {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let mut best: Option<(usize, &str, &Value)> = None;
    for (template, item) in document["paths"].as_object()? {
        let parts: Vec<&str> = template.split('/').collect();
        if parts.len() != segments.len() {
            continue;
        }
        let fits = parts
            .iter()
            .zip(&segments)
            .all(|(t, s)| t == s || (t.starts_with('{') && !s.is_empty()));
        let holes = parts.iter().filter(|t| t.starts_with('{')).count();
        if fits && best.is_none_or(|(h, _, _)| holes < h) {
            best = Some((holes, template, item));
        }
    }
    best.map(|(_, template, item)| (template, item))
}

fn expect_problem(
    document: &Value,
    status: u16,
    want: u16,
    headers: &reqwest::header::HeaderMap,
    body: &str,
) -> Result<(), String> {
    if status != want {
        return Err(format!("expected {want} here"));
    }
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok());
    if content_type != Some("application/problem+json") {
        return Err(format!("content type {content_type:?}, not a problem"));
    }
    let value: Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
    let schema = serde_json::json!({ "$ref": "#/components/schemas/ErrorBody" });
    valid(document, &schema, &value, "$")
}

/// JSON Schema, the part of it utoipa writes: `$ref`, `type` (one or a
/// list), `properties`, `required`, `additionalProperties`, `items`,
/// `oneOf`/`anyOf`/`allOf`, `enum`, `minimum`/`maximum`,
/// `minLength`/`maxLength`.
fn valid(document: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        let target = &document["components"]["schemas"][name];
        if target.is_null() {
            return Err(format!("{at}: unknown schema {reference}"));
        }
        return valid(document, target, value, at);
    }
    if let Some(all) = schema["allOf"].as_array() {
        for s in all {
            valid(document, s, value, at)?;
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema[key].as_array() {
            let fits = options
                .iter()
                .filter(|s| valid(document, s, value, at).is_ok())
                .count();
            let ok = if key == "oneOf" { fits == 1 } else { fits >= 1 };
            if !ok {
                return Err(format!(
                    "{at}: {value:.80} fits {fits} of the {key} schemas"
                ));
            }
        }
    }
    if let Some(choices) = schema["enum"].as_array() {
        if !choices.contains(value) {
            return Err(format!("{at}: {value} is not one of {choices:?}"));
        }
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !types.is_empty() && !types.iter().any(|t| of_type(value, t)) {
        return Err(format!("{at}: {value:.80} is not {types:?}"));
    }
    match value {
        Value::Object(fields) => {
            let properties = schema["properties"].as_object();
            for name in schema["required"].as_array().into_iter().flatten() {
                let name = name.as_str().unwrap_or_default();
                if !fields.contains_key(name) {
                    return Err(format!("{at}: the required field {name} is missing"));
                }
            }
            for (name, field) in fields {
                match properties.and_then(|p| p.get(name)) {
                    Some(s) => valid(document, s, field, &format!("{at}.{name}"))?,
                    None if schema["additionalProperties"] == Value::Bool(false) => {
                        return Err(format!("{at}: the field {name} is not documented"))
                    }
                    None if properties.is_some() => {
                        return Err(format!("{at}: the field {name} is not documented"))
                    }
                    None => {
                        if let Some(s) =
                            schema.get("additionalProperties").filter(|s| s.is_object())
                        {
                            valid(document, s, field, &format!("{at}.{name}"))?;
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    valid(document, item_schema, item, &format!("{at}[{i}]"))?;
                }
            }
        }
        Value::Number(n) => {
            let n = n.as_f64().unwrap_or_default();
            if schema["minimum"].as_f64().is_some_and(|min| n < min) {
                return Err(format!("{at}: {n} is below the minimum"));
            }
            if schema["maximum"].as_f64().is_some_and(|max| n > max) {
                return Err(format!("{at}: {n} is above the maximum"));
            }
        }
        Value::String(s) => {
            let len = s.chars().count() as u64;
            if schema["minLength"].as_u64().is_some_and(|min| len < min)
                || schema["maxLength"].as_u64().is_some_and(|max| len > max)
            {
                return Err(format!("{at}: {s:.40} has a length outside the schema's"));
            }
        }
        _ => {}
    }
    Ok(())
}

fn of_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}
