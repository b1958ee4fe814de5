//! The staff area's pages; only staff accounts get them.

use app::portal::audit::AuditView;
use app::portal::staff::{OutboxView, StaffView};
use app::portal::FormFeedback;
use axum::extract::State;
use axum::response::Response;
use axum::Extension;
use http::request::Parts;
use std::sync::Arc;

use super::access::{denied, not_found, unavailable};
use super::auth::CurrentUser;
use super::portal::render;
use crate::startup::AppState;

pub async fn staff_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    mut parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    let loaded = async {
        Ok::<_, anyhow::Error>(StaffView {
            organizations: backend::staff::organizations(&state.db).await?,
            users: backend::staff::users(&state.db).await?,
        })
    };
    match loaded.await {
        Ok(view) => {
            parts.extensions.insert(view);
            render(&state, parts, FormFeedback::default()).await
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}

pub async fn outbox_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    mut parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    // Mail bodies hold working reset, invitation and verification links:
    // reading them is taking over the account, so only a development
    // server (whose mail goes nowhere else) shows them.
    if !state.config.development() {
        return not_found(&state, parts).await;
    }
    match backend::mail::outbox(&state.db, None, 100).await {
        Ok(mails) => {
            let mails = mails
                .into_iter()
                .map(|m| (m.created_at, m.to, m.subject, m.body))
                .collect();
            parts.extensions.insert(OutboxView { mails });
            render(&state, parts, FormFeedback::default()).await
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}

/// The audit log of every organization, and of actions outside any.
pub async fn audit_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    mut parts: Parts,
) -> Response {
    if !current.user.is_staff {
        return denied(&state, parts).await;
    }
    match backend::audit::all(&state.db, 500).await {
        Ok(entries) => {
            parts.extensions.insert(AuditView { entries });
            render(&state, parts, FormFeedback::default()).await
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}
