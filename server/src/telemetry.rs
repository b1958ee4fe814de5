//! Structured logs: readable in development, JSON lines in production.

use tracing_subscriber::{fmt, EnvFilter};

use crate::config::{Config, Environment};

pub fn init(config: &Config) {
    let filter = EnvFilter::try_new(&config.log_filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr);
    // A second init (tests start many apps in one process) is harmless.
    let _ = match config.environment {
        Environment::Production => builder.json().flatten_event(true).try_init(),
        Environment::Development => builder.compact().try_init(),
    };
}
