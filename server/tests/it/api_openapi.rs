//! The OpenAPI document is generated from the handlers; this checks it
//! against the route table the router is built from: the same paths and
//! methods, and each operation's security scope equal to the scope the
//! guard enforces. A handler added without its annotation (or the other
//! way round) fails here.

use crate::common::{TestApp, TestDb};
use std::collections::BTreeSet;

on_both_databases!(
    the_openapi_document_matches_the_routes,
    choices_are_enums_and_names_carry_their_rules,
);

async fn the_openapi_document_matches_the_routes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let answer = app
        .api("GET", "/api/v1/openapi.json", None, None, &[])
        .await;
    assert_eq!(answer.status, 200);
    let doc = answer.json();
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "OpenAPI 3.1: {}",
        doc["openapi"]
    );
    let mut documented = BTreeSet::new();
    let mut failures = Vec::new();
    let paths = doc["paths"].as_object().expect("paths");
    for (path, operations) in paths {
        for (method, operation) in operations.as_object().expect("operations") {
            let method = method.to_uppercase();
            documented.insert((method.clone(), path.clone()));
            let scopes: Vec<String> = operation["security"]
                .as_array()
                .map(|all| {
                    all.iter()
                        .filter_map(|s| s["token"].as_array())
                        .flatten()
                        .filter_map(|s| s.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let declared = server::http::api::inventory()
                .into_iter()
                .find(|(m, p, _)| *m == method && p == path)
                .map(|(_, _, scope)| scope);
            match declared {
                Some(scope) => {
                    let want: Vec<String> = scope.map(str::to_owned).into_iter().collect();
                    if scopes != want {
                        failures.push(format!(
                            "{method} {path}: documented scopes {scopes:?}, enforced {want:?}"
                        ));
                    }
                }
                None => failures.push(format!("{method} {path} is documented but not routed")),
            }
            if operation["responses"]
                .as_object()
                .is_none_or(|r| r.is_empty())
            {
                failures.push(format!("{method} {path}: no responses documented"));
            }
        }
    }
    for (method, path, _) in server::http::api::inventory() {
        if !documented.contains(&(method.clone(), path.clone())) {
            failures.push(format!("{method} {path} is routed but not documented"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let schemes = &doc["components"]["securitySchemes"]["token"];
    assert_eq!(schemes["scheme"], "bearer", "{schemes}");
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
    app.finish().await;
}

/// A schema, through its `$ref` (and a nullable `oneOf`/`anyOf`) if any.
fn resolve<'a>(doc: &'a serde_json::Value, schema: &'a serde_json::Value) -> &'a serde_json::Value {
    let schema = ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| schema[*k].as_array())
        .and_then(|alternatives| alternatives.iter().find(|s| s["type"] != "null"))
        .unwrap_or(schema);
    match schema["$ref"].as_str() {
        Some(reference) => {
            let name = reference.trim_start_matches("#/components/schemas/");
            &doc["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// Every field that takes or gives one of a few words lists them
/// (`enum`); plans, sites and names carry their pattern and lengths; the
/// `Idempotency-Key` and `limit` say what they accept.
async fn choices_are_enums_and_names_carry_their_rules(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let doc = app
        .api("GET", "/api/v1/openapi.json", None, None, &[])
        .await
        .json();
    let choices = [
        "state",
        "billing_state",
        "action",
        "image",
        "lang",
        "reason",
    ];
    let patterned = ["plan", "site"];
    let mut failures = Vec::new();
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    for (name, schema) in schemas {
        let Some(properties) = schema["properties"].as_object() else {
            continue;
        };
        for (field, property) in properties {
            let resolved = resolve(&doc, property);
            let is_enum = resolved["enum"].as_array().is_some_and(|e| !e.is_empty());
            let has_pattern = resolved["pattern"].is_string() && resolved["maxLength"].is_number();
            // A credit note's reason is free text a person wrote.
            let free_text = name == "CreditNoteJson" && field == "reason";
            if choices.contains(&field.as_str()) && !is_enum && !free_text {
                failures.push(format!("{name}.{field} lists no choices"));
            }
            if patterned.contains(&field.as_str()) && !has_pattern {
                failures.push(format!("{name}.{field} has no pattern"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let schema = |name: &str| doc["components"]["schemas"][name].clone();
    let words = |name: &str| -> Vec<String> {
        schema(name)["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(
        words("PowerActionChoice"),
        ["reboot", "power_cycle", "power_off", "power_on"]
    );
    assert!(words("ServerStateChoice").contains(&"restoring".to_owned()));
    assert_eq!(
        words("BillingStateChoice"),
        ["active", "past_due", "suspended"]
    );
    assert_eq!(
        words("ImageChoice"),
        ["ubuntu-24.04", "debian-13", "rocky-9", "rescue"]
    );
    assert_eq!(schema("ServerNameChoice")["maxLength"], 63);
    assert_eq!(schema("SnapshotNameChoice")["maxLength"], 63);
    let rename = resolve(&doc, &schema("ServerChanges")["properties"]["name"]).clone();
    assert_eq!(rename["maxLength"], 63, "{rename}");
    // The snapshot's progress is documented.
    assert!(schema("SnapshotJson")["properties"]["progress"].is_object());
    // Lists take 1–100.
    let servers = &doc["paths"]["/api/v1/servers"]["get"]["parameters"];
    let limit = servers
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "limit")
        .cloned()
        .unwrap_or_default();
    assert_eq!(limit["schema"]["minimum"], 1, "{limit}");
    assert_eq!(limit["schema"]["maximum"], 100, "{limit}");
    app.finish().await;
}
