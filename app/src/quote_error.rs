//! Why a live quote's server function could not answer. Each reason
//! carries the HTTP status it deserves (a caller who may not order gets
//! 403, not a 500), and the island keeps the figures the page already
//! shows whatever the reason: the server-rendered page is always right.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum QuoteError {
    /// The caller's role may not order (or nobody is signed in).
    NotAllowed,
    /// No such plan or site.
    Unknown,
    /// The database or the request's context failed; logged on the server.
    Unavailable,
    /// Leptos could not decode the call or encode the answer.
    Call(ServerFnErrorErr),
}

impl FromServerFnError for QuoteError {
    type Encoder = JsonEncoding;

    /// On the server this is a call whose arguments did not decode: the
    /// caller's mistake (400), not ours.
    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        QuoteError::Call(value).answer()
    }
}

impl QuoteError {
    /// Sets this error's status on the response being built (on the
    /// server; in the browser there is none) and hands the error back, for
    /// `return Err(QuoteError::NotAllowed.answer())`.
    #[cfg(not(feature = "ssr"))]
    pub fn answer(self) -> Self {
        self
    }

    #[cfg(feature = "ssr")]
    pub fn answer(self) -> Self {
        use http::StatusCode;
        let status = match &self {
            QuoteError::NotAllowed => StatusCode::FORBIDDEN,
            QuoteError::Unknown => StatusCode::NOT_FOUND,
            QuoteError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            QuoteError::Call(_) => StatusCode::BAD_REQUEST,
        };
        if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(status);
        }
        self
    }
}
