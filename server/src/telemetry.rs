//! Structured logs: readable in development, JSON lines in production.

use tracing_subscriber::{fmt, EnvFilter};

use crate::config::{Config, Environment};

pub fn init(config: &Config) {
    // async-stripe warns on every parse of a stored webhook body, which we
    // verified on receipt (billing::stripe::events), and on API versions
    // we hold ourselves: its errors only, unless the filter says otherwise.
    let mut directives = config.log_filter.clone();
    if !directives.contains("stripe_webhook") {
        directives.push_str(",stripe_webhook=error");
    }
    let filter = EnvFilter::try_new(&directives).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr);
    // A second init (tests start many apps in one process) is harmless.
    let _ = match config.environment {
        Environment::Production => builder.json().flatten_event(true).try_init(),
        Environment::Development => builder.compact().try_init(),
    };
}
