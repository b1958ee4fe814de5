//! The API's one error shape: `{"error": {"code", "message"}}` at the right
//! status, the message in the caller's language (`Accept-Language`, English
//! by default: scripts rarely send one). Internal causes are logged here and
//! never sent.

use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::Lang;
use http::header::{self, HeaderMap, HeaderValue};
use http::StatusCode;
use serde::Serialize;

/// What went wrong, as a client can act on it. Each kind has a status, a
/// stable code and a message in both languages (`messages.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    BadRequest,
    Unauthorized,
    TokenExpired,
    TokenRevoked,
    TokenCreatorLostRole,
    InsufficientScope,
    NotFound,
    MethodNotAllowed,
    Conflict,
    Busy,
    IdempotencyKeyReused,
    TooLarge,
    UnsupportedMediaType,
    Invalid,
    InvalidName,
    InvalidCursor,
    IdempotencyKeyRequired,
    UnknownChoice,
    BadSshKey,
    SoldOut,
    NoBillingProfile,
    DailyOrderLimit,
    SnapshotQuotaFull,
    SnapshotsNotOffered,
    NotCancellable,
    ConsoleUnavailable,
    RateLimited,
    Unavailable,
}

impl Problem {
    pub fn status(self) -> StatusCode {
        use Problem::*;
        match self {
            BadRequest | InvalidCursor => StatusCode::BAD_REQUEST,
            Unauthorized | TokenExpired | TokenRevoked | TokenCreatorLostRole => {
                StatusCode::UNAUTHORIZED
            }
            InsufficientScope => StatusCode::FORBIDDEN,
            NotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Conflict | Busy | IdempotencyKeyReused | NotCancellable | ConsoleUnavailable => {
                StatusCode::CONFLICT
            }
            TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Invalid
            | InvalidName
            | IdempotencyKeyRequired
            | UnknownChoice
            | BadSshKey
            | SoldOut
            | NoBillingProfile
            | SnapshotQuotaFull
            | SnapshotsNotOffered
            | DailyOrderLimit => StatusCode::UNPROCESSABLE_ENTITY,
            RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// An error answer: the problem, and for 429 the seconds to wait.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub problem: Problem,
    pub retry_after: Option<i64>,
    /// Sites that still have the plan, for `sold_out`.
    pub sites_with_stock: Option<Vec<String>>,
    /// `None` until the API's guard, which knows the request, sets the
    /// caller's language: so a handler answers any failure with `?`.
    pub lang: Option<Lang>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(problem: Problem, lang: Lang) -> ApiError {
        ApiError::from(problem).in_lang(lang)
    }

    /// Worded in `lang` rather than the request's `Accept-Language` (the
    /// feed's `?lang=` chooses it).
    pub fn in_lang(self, lang: Lang) -> ApiError {
        ApiError {
            lang: Some(lang),
            ..self
        }
    }
}

/// The problem, worded in the caller's language by the guard.
impl From<Problem> for ApiError {
    fn from(problem: Problem) -> ApiError {
        ApiError {
            problem,
            retry_after: None,
            sites_with_stock: None,
            lang: None,
        }
    }
}

/// A failure of ours: logged with its cause, answered as 503.
impl From<anyhow::Error> for ApiError {
    fn from(cause: anyhow::Error) -> ApiError {
        tracing::error!(error = %format!("{cause:#}"), "API request failed");
        ApiError::from(Problem::Unavailable)
    }
}

/// An error answered before its language was known, kept on the response
/// for `localize`.
#[derive(Clone)]
struct Unworded(ApiError);

/// Words an error answer that has no language yet in `lang` (the guard
/// calls this on every response of the API).
pub fn localize(response: Response, lang: Lang) -> Response {
    match response.extensions().get::<Unworded>() {
        Some(Unworded(error)) => error.clone().in_lang(lang).into_response(),
        None => response,
    }
}

/// The body of every error (documented in the OpenAPI document).
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// Stable, for programs: `not_found`, `insufficient_scope`, `sold_out`…
    pub code: &'static str,
    /// For people, in the language of `Accept-Language` (zh or en).
    pub message: &'static str,
    /// With `sold_out`: the sites that still have this plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sites_with_stock: Option<Vec<String>>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let unworded = self.lang.is_none().then(|| Unworded(self.clone()));
        let lang = self.lang.unwrap_or(Lang::En);
        let (code, message) = super::messages::text(self.problem, lang);
        let body = ErrorBody {
            error: ErrorDetail {
                code,
                message,
                sites_with_stock: self.sites_with_stock,
            },
        };
        let mut response = (self.problem.status(), Json(body)).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(
            header::CONTENT_LANGUAGE,
            HeaderValue::from_static(lang.code()),
        );
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        }
        if self.problem.status() == StatusCode::UNAUTHORIZED {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"api\""),
            );
        }
        if let Some(unworded) = unworded {
            response.extensions_mut().insert(unworded);
        }
        response
    }
}

/// The language an API client asked for: `Accept-Language`, else English.
pub fn lang_of(headers: &HeaderMap) -> Lang {
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(Lang::negotiate)
        .unwrap_or(Lang::En)
}
