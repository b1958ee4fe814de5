//! The API's one error shape, RFC 9457 `application/problem+json`: `type`
//! (the API docs' entry for the problem), `title`, `status`, `detail`, our
//! stable `code` and the request's id, worded in the caller's language
//! (`Accept-Language`, English by default: scripts rarely send one).
//! Internal causes are logged here and never sent.

use axum::response::{IntoResponse, Response};
use domain::Lang;
use http::header::{self, HeaderMap, HeaderValue};
use http::StatusCode;
use serde::Serialize;

/// What went wrong, as a client can act on it. Each kind has a status, a
/// stable code and a message in both languages (`messages.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    BadRequest,
    MalformedBody,
    Unauthorized,
    /// A token was sent, but none of ours has that secret (same code as
    /// `Unauthorized`; RFC 6750 calls it `invalid_token`).
    TokenUnknown,
    TokenExpired,
    TokenRevoked,
    TokenCreatorLostRole,
    InsufficientScope,
    NotFound,
    MethodNotAllowed,
    Conflict,
    Busy,
    IdempotencyKeyReused,
    IdempotencyKeyInUse,
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
    RootResetNotOffered,
    NotCancellable,
    ConsoleUnavailable,
    RateLimited,
    Unavailable,
    Internal,
}

impl Problem {
    /// Every problem, for the checks that the docs page explains each.
    pub const ALL: [Problem; 33] = {
        use Problem::*;
        [
            BadRequest,
            MalformedBody,
            Unauthorized,
            TokenUnknown,
            TokenExpired,
            TokenRevoked,
            TokenCreatorLostRole,
            InsufficientScope,
            NotFound,
            MethodNotAllowed,
            Conflict,
            Busy,
            IdempotencyKeyReused,
            IdempotencyKeyInUse,
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
            RootResetNotOffered,
            NotCancellable,
            ConsoleUnavailable,
            RateLimited,
            Unavailable,
            Internal,
        ]
    };

    /// The stable code programs branch on.
    pub fn code(self) -> &'static str {
        super::messages::text(self, Lang::En).0
    }

    pub fn status(self) -> StatusCode {
        use Problem::*;
        match self {
            BadRequest | MalformedBody | InvalidCursor | IdempotencyKeyRequired => {
                StatusCode::BAD_REQUEST
            }
            Unauthorized | TokenUnknown | TokenExpired | TokenRevoked | TokenCreatorLostRole => {
                StatusCode::UNAUTHORIZED
            }
            InsufficientScope => StatusCode::FORBIDDEN,
            NotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Conflict | Busy | IdempotencyKeyInUse | NotCancellable | ConsoleUnavailable => {
                StatusCode::CONFLICT
            }
            TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Invalid | InvalidName | IdempotencyKeyReused | UnknownChoice | BadSshKey | SoldOut
            | NoBillingProfile | SnapshotQuotaFull | SnapshotsNotOffered | DailyOrderLimit
            | RootResetNotOffered => StatusCode::UNPROCESSABLE_ENTITY,
            RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error answer: the problem, and what the client needs to act on it.
#[derive(Clone, Debug)]
pub struct ApiError {
    pub problem: Problem,
    /// Seconds to wait, sent as `Retry-After` (429, and a 503 worth retrying).
    pub retry_after: Option<i64>,
    /// Sites that still have the plan, for `sold_out`.
    pub sites_with_stock: Option<Vec<String>>,
    /// The scope a token lacks, for `insufficient_scope`.
    pub scope: Option<&'static str>,
    /// The body field at fault, for `invalid` and `unknown_choice` (`name`,
    /// `addons[0]`).
    pub field: Option<String>,
    /// `None` until the API's guard, which knows the request, sets the
    /// caller's language: so a handler answers any failure with `?`.
    pub lang: Option<Lang>,
    /// What only the guard knows: the request's id and where the docs are
    /// (boxed: an `ApiError` travels in every handler's `Result`).
    pub request: Option<Box<RequestContext>>,
}

/// The request an error answers, for its body's `type` and `request_id`.
#[derive(Clone, Debug)]
pub struct RequestContext {
    pub id: String,
    /// The public base URL, so `type` is an absolute URI.
    pub base_url: String,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(problem: Problem, lang: Lang) -> ApiError {
        ApiError::from(problem).in_lang(lang)
    }

    /// Worded in `lang` rather than the request's `Accept-Language` (the
    /// feed's `?lang=` chooses it).
    /// The same error, naming the request field at fault (`field`).
    pub fn at(self, field: &str) -> ApiError {
        ApiError {
            field: Some(field.to_owned()),
            ..self
        }
    }

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
            scope: None,
            field: None,
            lang: None,
            request: None,
        }
    }
}

/// A failure, logged with its cause. A database out of reach is a 503
/// worth retrying; anything else is a bug of ours (500), and retrying it
/// would not help.
impl From<anyhow::Error> for ApiError {
    fn from(cause: anyhow::Error) -> ApiError {
        tracing::error!(error = %format!("{cause:#}"), "API request failed");
        if backend::db::is_unavailable(&cause) {
            let mut error = ApiError::from(Problem::Unavailable);
            error.retry_after = Some(2);
            return error;
        }
        ApiError::from(Problem::Internal)
    }
}

/// Finishes an error answer with what the guard knows (the language, the
/// request's id, the base URL): every error response keeps its `ApiError`
/// for this.
pub fn finish(response: Response, lang: Lang, request: &RequestContext) -> Response {
    match response.extensions().get::<ApiError>() {
        Some(error) => {
            let mut error = error.clone();
            error.lang = error.lang.or(Some(lang));
            error.request = Some(Box::new(request.clone()));
            let mut finished = error.into_response();
            // Headers a layer or the guard added (rate limits) stay.
            for (name, value) in response.headers() {
                if !finished.headers().contains_key(name) {
                    finished.headers_mut().insert(name, value.clone());
                }
            }
            finished
        }
        None => response,
    }
}

/// The body of every error, RFC 9457 (documented in the OpenAPI document).
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The documentation of this problem: `…/docs/api#error-{code}`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What went wrong, for people, in the language of `Accept-Language` (zh or en).
    pub title: &'static str,
    /// The HTTP status, repeated.
    pub status: u16,
    /// This occurrence: the title and its particulars (the sites with
    /// stock, the scope missing).
    pub detail: String,
    /// Stable, for programs: `not_found`, `insufficient_scope`, `sold_out`…
    pub code: &'static str,
    /// Quote it to support: it names this request in our logs (also the
    /// `X-Request-Id` header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// With `sold_out`: the sites that still have this plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sites_with_stock: Option<Vec<String>>,
    /// With `insufficient_scope`: the scope the token needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    /// With `invalid` and `unknown_choice`, when known: the body field at fault (`name`,
    /// `addons[0]`), missing, of the wrong type or not one of ours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let lang = self.lang.unwrap_or(Lang::En);
        let (code, title) = super::messages::text(self.problem, lang);
        let status = self.problem.status();
        let mut detail = title.to_owned();
        if let Some(sites) = self.sites_with_stock.as_ref().filter(|s| !s.is_empty()) {
            detail = format!("{detail} ({})", sites.join(", "));
        }
        if let Some(scope) = self.scope {
            detail = format!("{detail} ({scope})");
        }
        if let Some(field) = &self.field {
            detail = format!("{detail} ({field})");
        }
        let base = self.request.as_ref().map_or("", |r| r.base_url.as_str());
        let body = ErrorBody {
            kind: format!("{base}/{}/docs/api#error-{code}", lang.code()),
            title,
            status: status.as_u16(),
            detail,
            code,
            request_id: self.request.as_ref().map(|r| r.id.clone()),
            sites_with_stock: self.sites_with_stock.clone(),
            scope: self.scope,
            field: self.field.clone(),
        };
        let json = serde_json::to_vec(&body).unwrap_or_default();
        let mut response = (status, json).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        headers.insert(
            header::CONTENT_LANGUAGE,
            HeaderValue::from_static(lang.code()),
        );
        if let Some(seconds) = self.retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        }
        if let Some(challenge) = challenge(self.problem, self.scope) {
            headers.insert(header::WWW_AUTHENTICATE, challenge);
        }
        response.extensions_mut().insert(self);
        response
    }
}

/// RFC 6750's `WWW-Authenticate` for 401 and 403: no error when no token
/// was sent, `invalid_token` for one that does not work, and
/// `insufficient_scope` naming the scope needed.
fn challenge(problem: Problem, scope: Option<&str>) -> Option<HeaderValue> {
    use Problem::*;
    let value = match problem {
        Unauthorized => "Bearer realm=\"api\"".to_owned(),
        TokenUnknown | TokenExpired | TokenRevoked | TokenCreatorLostRole => {
            "Bearer realm=\"api\", error=\"invalid_token\"".to_owned()
        }
        InsufficientScope => format!(
            "Bearer realm=\"api\", error=\"insufficient_scope\", scope=\"{}\"",
            scope.unwrap_or_default()
        ),
        _ => return None,
    };
    HeaderValue::from_str(&value).ok()
}

/// The language an API client asked for: `Accept-Language`, else English.
pub fn lang_of(headers: &HeaderMap) -> Lang {
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(Lang::negotiate)
        .unwrap_or(Lang::En)
}
