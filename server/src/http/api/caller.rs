//! What API handlers start from: the token's caller (put there by the
//! guard), the language of the answer, a JSON body whose every rejection is
//! our error shape, and list pagination.

use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::api_tokens::{self, Refused, Scope};
use backend::organizations::Role;
use backend::servers::Actor;
use domain::{Lang, OrganizationId, UserId};
use http::header::{self, HeaderMap, HeaderValue};
use http::request::Parts;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::error::{lang_of, ApiError, Problem};
use crate::startup::AppState;

/// The member a token acts for, as its creator, within its scopes.
#[derive(Clone, Debug)]
pub struct ApiCaller {
    pub token_id: String,
    pub organization_id: OrganizationId,
    pub user_id: UserId,
    pub email: String,
    pub role: Role,
    pub scopes: Vec<Scope>,
    pub ip: String,
    pub lang: Lang,
}

impl ApiCaller {
    /// The actor the backend records in the audit log and scopes by.
    pub fn actor(&self) -> Actor<'_> {
        Actor {
            organization_id: &self.organization_id,
            user_id: &self.user_id,
            email: &self.email,
            ip: Some(&self.ip),
        }
    }

    pub fn error(&self, problem: Problem) -> ApiError {
        ApiError::new(problem, self.lang)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ApiCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<ApiCaller>()
            .cloned()
            .ok_or_else(|| ApiError::new(Problem::Unauthorized, lang_of(&parts.headers)))
    }
}

/// The bearer token of the request, checked. A session cookie, if any, is
/// never looked at.
pub async fn authenticate(
    state: &AppState,
    headers: &HeaderMap,
    ip: &str,
    lang: Lang,
) -> Result<ApiCaller, ApiError> {
    let secret = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .ok_or_else(|| ApiError::new(Problem::Unauthorized, lang))?;
    let checked = api_tokens::authenticate(&state.db, &state.clock, secret, Some(ip)).await?;
    let token = checked.map_err(|refused| {
        let problem = match refused {
            Refused::Unknown => Problem::TokenUnknown,
            Refused::Expired => Problem::TokenExpired,
            Refused::Revoked => Problem::TokenRevoked,
            Refused::CreatorLostRole => Problem::TokenCreatorLostRole,
        };
        ApiError::new(problem, lang)
    })?;
    Ok(ApiCaller {
        token_id: token.token_id,
        organization_id: token.organization_id,
        user_id: token.user_id,
        email: token.email,
        role: token.role,
        scopes: token.scopes,
        ip: ip.to_owned(),
        lang,
    })
}

/// Counts the request against its token's per-minute limit (shared by
/// every replica through the database).
pub async fn count_request(
    state: &AppState,
    caller: &ApiCaller,
    lang: Lang,
) -> Result<backend::rate_limit::Window, Response> {
    let key = format!("api:{}", caller.token_id);
    let counted = backend::rate_limit::count_in_window(
        &state.db,
        &key,
        state.config.api_rate_limit,
        60,
        state.clock.now(),
    )
    .await
    .map_err(|e| ApiError::from(e).in_lang(lang).into_response())?;
    counted.map_err(|window| {
        let mut error = ApiError::new(Problem::RateLimited, lang);
        error.retry_after = Some(window.reset_in);
        let mut response = error.into_response();
        rate_headers(response.headers_mut(), window);
        response
    })
}

pub fn rate_headers(headers: &mut HeaderMap, window: backend::rate_limit::Window) {
    headers.insert("x-ratelimit-limit", HeaderValue::from(window.limit));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(window.remaining));
    headers.insert("x-ratelimit-reset", HeaderValue::from(window.reset_in));
}

/// The language the answer is written in.
pub struct ApiLang(pub Lang);

impl<S: Send + Sync> FromRequestParts<S> for ApiLang {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(ApiLang(lang_of(&parts.headers)))
    }
}

/// A JSON request body: one JSON object (an array would be read by
/// position, `["g-l40s","ams","x"]` as an order), with only the fields its
/// type names (every body type denies unknown fields). A wrong content type,
/// bad JSON or wrong fields answer in the API's error shape.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        use axum::extract::rejection::JsonRejection;
        let lang = lang_of(req.headers());
        let value = match Json::<serde_json::Value>::from_request(req, state).await {
            Ok(Json(value)) => value,
            Err(rejection) => {
                let problem = match rejection {
                    JsonRejection::MissingJsonContentType(_) => Problem::UnsupportedMediaType,
                    JsonRejection::BytesRejection(r)
                        if r.status() == http::StatusCode::PAYLOAD_TOO_LARGE =>
                    {
                        Problem::TooLarge
                    }
                    _ => Problem::MalformedBody,
                };
                return Err(ApiError::new(problem, lang));
            }
        };
        if !value.is_object() {
            return Err(ApiError::new(Problem::MalformedBody, lang));
        }
        serde_path_to_error::deserialize(value)
            .map(Body)
            .map_err(|error| {
                let mut refused = ApiError::new(Problem::Invalid, lang);
                refused.field = field_at_fault(&error);
                refused
            })
    }
}

/// The field a body was refused for: its path, or for an unknown or
/// missing field (reported at the object holding it) the name serde quotes.
fn field_at_fault(error: &serde_path_to_error::Error<serde_json::Error>) -> Option<String> {
    let message = error.inner().to_string();
    let named = ["unknown field `", "missing field `"]
        .iter()
        .find_map(|prefix| message.split_once(prefix))
        .and_then(|(_, rest)| rest.split('`').next());
    let path = error.path().to_string();
    let path = (path != ".").then_some(path);
    match (path, named) {
        (Some(path), Some(name)) if path == name || path.ends_with(&format!(".{name}")) => {
            Some(path)
        }
        (Some(path), Some(name)) => Some(format!("{path}.{name}")),
        (Some(path), None) => Some(path),
        (None, Some(name)) => Some(name.to_owned()),
        (None, None) => None,
    }
}

/// `?limit=&cursor=` of a list.
#[derive(Deserialize, Default, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// 1–100, default 50; outside that range: 400.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// One page of a list and the cursor of the next, if any.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct ListPage<T> {
    pub data: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T> ListPage<T> {
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> ListPage<U> {
        ListPage {
            data: self.data.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
        }
    }
}

/// The key a list item is paged by: its creation time, then its id, so
/// keys are unique and sort as the list does.
pub fn sort_key(created_at: i64, id: impl std::fmt::Display) -> String {
    format!("{created_at:020}:{id}")
}

impl PageQuery {
    /// The page size asked for: 1–100 or the request is refused (a page of
    /// 2,147,483,648 is a mistake, not a wish).
    pub fn limit(&self) -> Result<usize, Problem> {
        match self.limit.unwrap_or(50) {
            limit @ 1..=100 => Ok(limit as usize),
            _ => Err(Problem::BadRequest),
        }
    }

    /// The page of `items` after the cursor. `items` are sorted by `key`
    /// (see [`sort_key`]), oldest first or `newest_first`. A cursor is the
    /// last key of a page, hex-encoded so clients treat it as opaque; an
    /// item deleted meanwhile doesn't break it.
    pub fn page<T>(
        &self,
        items: Vec<T>,
        key: impl Fn(&T) -> String,
        newest_first: bool,
        lang: Lang,
    ) -> Result<ListPage<T>, ApiError> {
        let limit = self
            .limit()
            .map_err(|problem| ApiError::new(problem, lang))?;
        let after = match self.cursor.as_deref().filter(|c| !c.is_empty()) {
            Some(cursor) => {
                Some(unhex(cursor).ok_or_else(|| ApiError::new(Problem::InvalidCursor, lang))?)
            }
            None => None,
        };
        let beyond = |item: &T| match &after {
            None => true,
            Some(after) if newest_first => key(item) < *after,
            Some(after) => key(item) > *after,
        };
        let mut data: Vec<T> = items
            .into_iter()
            .filter(|item| beyond(item))
            .take(limit + 1)
            .collect();
        let next_cursor = if data.len() > limit {
            data.truncate(limit);
            data.last().map(|last| hex(&key(last)))
        } else {
            None
        };
        Ok(ListPage { data, next_cursor })
    }
}

/// Paging cut in the database: the query asks for one row more than the
/// page holds, to know whether another page follows.
impl PageQuery {
    /// The last item of the previous page, from the cursor: its creation
    /// time and id (see [`sort_key`]).
    pub fn after(&self, lang: Lang) -> Result<Option<(i64, String)>, ApiError> {
        let Some(cursor) = self.cursor.as_deref().filter(|c| !c.is_empty()) else {
            return Ok(None);
        };
        let key = unhex(cursor).ok_or_else(|| ApiError::new(Problem::InvalidCursor, lang))?;
        let (created_at, id) = key
            .split_once(':')
            .and_then(|(at, id)| Some((at.parse::<i64>().ok()?, id.to_owned())))
            .ok_or_else(|| ApiError::new(Problem::InvalidCursor, lang))?;
        Ok(Some((created_at, id)))
    }

    /// The rows to ask the database for: the page and one more.
    pub fn fetch(&self, lang: Lang) -> Result<i64, ApiError> {
        let limit = self.limit().map_err(|p| ApiError::new(p, lang))?;
        Ok(limit as i64 + 1)
    }

    /// A page from rows fetched with [`PageQuery::fetch`].
    pub fn cut<T>(&self, mut rows: Vec<T>, key: impl Fn(&T) -> String) -> ListPage<T> {
        let limit = self.limit().unwrap_or(50);
        let next_cursor = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(|last| hex(&key(last)))
        } else {
            None
        };
        ListPage {
            data: rows,
            next_cursor,
        }
    }
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<String> {
    if !text.len().is_multiple_of(2) || text.len() > 400 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// Query parameters; unreadable ones answer 400 in the API's shape.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| ApiQuery(q.0))
            .map_err(|_| ApiError::new(Problem::BadRequest, lang_of(&parts.headers)))
    }
}

/// A path's `{id}` (and the other parameters); unreadable ones are 404s.
pub struct ApiPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| ApiPath(p.0))
            .map_err(|_| ApiError::new(Problem::NotFound, lang_of(&parts.headers)))
    }
}
