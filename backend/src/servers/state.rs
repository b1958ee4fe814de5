//! A server's state and the step within it live in `domain::server`, shared
//! with the app; the database keeps them as text (`servers.state` with a
//! CHECK, `servers.step`), decoded where rows are read.

pub use domain::server::{ServerState, SnapshotState, Step};
