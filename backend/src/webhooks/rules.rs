//! What an endpoint may be: its address (https, no credentials) and the
//! events it names (`*`, a family, a type), and which events it wants.
//! Kept apart from the endpoint code, which writes the audit log.

/// The event families an endpoint may subscribe to (`server.*`) besides
/// single event types and `*`.
const FAMILIES: [&str; 4] = ["server", "order", "invoice", "stock"];

/// Whether `pattern` (`*`, `server.*`, `server.running`) names events:
/// a family, everything, or one type a family may send.
pub fn known_pattern(pattern: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    if let Some(family) = pattern.strip_suffix(".*") {
        return FAMILIES.contains(&family);
    }
    match pattern.split_once('.') {
        Some(("server", kind)) => domain::server::EventKind::parse(kind).is_some(),
        Some(("order", state)) => domain::order::OrderState::parse(state).is_some(),
        Some(("invoice", state)) => domain::invoice::InvoiceStatus::parse(state).is_some(),
        Some(("stock", "changed")) => true,
        _ => false,
    }
}

/// Whether an endpoint subscribed to `patterns` wants an event of `kind`.
pub fn wants(patterns: &[String], kind: &str) -> bool {
    patterns.iter().any(|p| {
        p == "*"
            || p == kind
            || p.strip_suffix('*')
                .is_some_and(|family| kind.starts_with(family))
    })
}

/// A webhook URL: https (http too where private addresses are allowed, in
/// development and tests), a host, no credentials in it.
pub fn valid_url(raw: &str, allow_private: bool) -> bool {
    let Ok(url) = reqwest::Url::parse(raw) else {
        return false;
    };
    let scheme_ok = url.scheme() == "https" || (allow_private && url.scheme() == "http");
    raw.len() <= 2000
        && scheme_ok
        && url.host_str().is_some_and(|h| !h.is_empty())
        && url.username().is_empty()
        && url.password().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_name_families_and_types() {
        for ok in [
            "*",
            "server.*",
            "server.running",
            "server.snapshot.ready",
            "order.fulfilled",
            "invoice.paid",
            "stock.changed",
            "stock.*",
        ] {
            assert!(known_pattern(ok), "{ok}");
        }
        for bad in [
            "",
            "servers.*",
            "server.exploded",
            "invoice.draft2",
            "stock.gone",
            "*.*",
        ] {
            assert!(!known_pattern(bad), "{bad}");
        }
        let subscribed = vec!["server.*".to_owned(), "invoice.paid".to_owned()];
        assert!(wants(&subscribed, "server.snapshot.ready"));
        assert!(wants(&subscribed, "invoice.paid"));
        assert!(!wants(&subscribed, "invoice.open"));
        assert!(wants(&["*".to_owned()], "stock.changed"));
    }

    #[test]
    fn urls_are_https_without_credentials() {
        assert!(valid_url("https://hooks.example.com/gpu", false));
        assert!(!valid_url("http://hooks.example.com/gpu", false));
        assert!(valid_url("http://127.0.0.1:8080/hook", true));
        assert!(!valid_url("https://user:pw@hooks.example.com/", false));
        assert!(!valid_url("ftp://hooks.example.com/", true));
        assert!(!valid_url("not a url", true));
    }
}
