//! The OpenAPI document is generated from the handlers; this checks it
//! against the route table the router is built from: the same paths and
//! methods, and each operation's security scope equal to the scope the
//! guard enforces. A handler added without its annotation (or the other
//! way round) fails here.

use crate::common::{TestApp, TestDb};
use std::collections::BTreeSet;

on_both_databases!(the_openapi_document_matches_the_routes);

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
