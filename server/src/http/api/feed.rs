//! `GET /api/v1/stock/feed.atom`: an Atom 1.0 feed of stock changes, one
//! entry each time a plan at a site moved to another level or band (the
//! worker records them, `backend::stock_history`), newest first, for feed
//! readers and chat bots. Titles in English or Chinese.

use axum::extract::State;
use axum::response::Response;
use backend::stock_history::{self, StockChange};
use domain::time::format_iso;
use domain::{Catalog, Lang};
use http::header::{self, HeaderMap, HeaderValue};
use serde::Deserialize;
use std::fmt::Write;
use std::sync::Arc;

use super::choices::{LangChoice, PlanChoice, SiteChoice};
use super::error::ErrorBody;
use super::stock::{conditional, given};
use super::{ApiError, ApiLang, ApiQuery, ApiResult, ApiRoute, Problem};
use crate::startup::AppState;

/// Feed readers poll every few minutes; a minute's delay is nothing there.
const CACHE_CONTROL: &str = "public, max-age=60";
const ENTRIES: u32 = 50;

pub fn routes() -> Vec<ApiRoute> {
    vec![ApiRoute::get("/api/v1/stock/feed.atom", None, feed)]
}

#[derive(utoipa::OpenApi)]
#[openapi(paths(feed))]
pub struct Doc;

/// `?plan=&site=&lang=`.
#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FeedQuery {
    /// Only this plan (`g-l40s`); unknown: 404.
    #[param(value_type = Option<PlanChoice>)]
    pub plan: Option<String>,
    /// Only this site (`fra`); unknown: 404.
    #[param(value_type = Option<SiteChoice>)]
    pub site: Option<String>,
    /// The language of the titles, before `Accept-Language`.
    #[param(value_type = Option<LangChoice>)]
    pub lang: Option<String>,
}

/// The feed's words in one language. A missing one fails the build.
struct FeedText {
    title: &'static str,
    subtitle: &'static str,
    colon: &'static str,
    in_stock: fn(&str) -> String,
    few: fn(&str) -> String,
    sold_out: &'static str,
}

const EN: FeedText = FeedText {
    title: "GPU server stock",
    subtitle: "Each time a plan at a site goes in or out of stock, or gets scarce.",
    colon: ": ",
    in_stock: |band| format!("in stock ({band})"),
    few: |band| format!("few ({band} left)"),
    sold_out: "sold out",
};

const ZH: FeedText = FeedText {
    title: "GPU 服务器库存",
    subtitle: "每当某站点的某方案到货、售罄或所剩无几时更新。",
    colon: "：",
    in_stock: |band| format!("有货（{band} 台）"),
    few: |band| format!("仅剩 {band} 台"),
    sold_out: "已售罄",
};

fn text(lang: Lang) -> &'static FeedText {
    match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    }
}

/// Stock changes (Atom)
///
/// One entry per change of a plan × site's level or band, the newest 50
/// first. Titles in the language of `?lang=` or `Accept-Language`.
#[utoipa::path(
    get,
    path = "/api/v1/stock/feed.atom",
    tag = "catalog",
    params(FeedQuery),
    responses(
        (status = 200, description = "An Atom 1.0 feed", content_type = "application/atom+xml",
         headers(("ETag" = String, description = "Weak; send it in `If-None-Match`"))),
        (status = 304, description = "Unchanged since the ETag sent in `If-None-Match`"),
        (status = 400, description = "`lang` is neither `zh` nor `en`", body = ErrorBody),
        (status = 404, description = "Unknown plan or site", body = ErrorBody),
        (status = 503, description = "The database is unreachable", body = ErrorBody),
    )
)]
pub async fn feed(
    State(state): State<Arc<AppState>>,
    ApiLang(lang): ApiLang,
    ApiQuery(query): ApiQuery<FeedQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let lang = match given(&query.lang) {
        Some(code) => {
            Lang::from_code(code).ok_or_else(|| ApiError::new(Problem::BadRequest, lang))?
        }
        None => lang,
    };
    let facts = state
        .facts
        .current()
        .await
        .map_err(|e| ApiError::from(e).in_lang(lang))?
        .facts;
    let (plan, site) = (given(&query.plan), given(&query.site));
    let known = plan.is_none_or(|p| facts.catalog.plan(p).is_some())
        && site.is_none_or(|s| facts.catalog.site(s).is_some());
    if !known {
        return Err(ApiError::new(Problem::NotFound, lang));
    }
    let changes = stock_history::recent(&state.db, plan, site, ENTRIES)
        .await
        .map_err(|e| ApiError::from(e).in_lang(lang))?;
    let filter = Filter { plan, site };
    let base = state.site_info.base_url.trim_end_matches('/');
    let author = match state.site_info.company.legal_name.as_str() {
        "" => base.split("://").nth(1).unwrap_or(base),
        name => name,
    };
    let body = atom(&facts.catalog, &changes, &filter, base, author, lang);
    let mut response = conditional::answer(
        &headers,
        body.into_bytes(),
        "application/atom+xml; charset=utf-8",
        CACHE_CONTROL,
    );
    response.headers_mut().insert(
        header::VARY,
        HeaderValue::from_static("accept-encoding, accept-language"),
    );
    Ok(response)
}

struct Filter<'a> {
    plan: Option<&'a str>,
    site: Option<&'a str>,
}

impl Filter<'_> {
    /// `?plan=…&site=…` as given (known values only), or "".
    fn query(&self) -> String {
        let pairs: Vec<String> = [("plan", self.plan), ("site", self.site)]
            .into_iter()
            .filter_map(|(name, value)| value.map(|v| format!("{name}={v}")))
            .collect();
        if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        }
    }
}

fn atom(
    catalog: &Catalog,
    changes: &[StockChange],
    filter: &Filter<'_>,
    base: &str,
    author: &str,
    lang: Lang,
) -> String {
    let t = text(lang);
    let feed_url = format!("{base}/api/v1/stock/feed.atom{}", filter.query());
    // Before the worker's first record there is nothing newer than this.
    let updated = changes.first().map_or(0, |c| c.changed_at);
    let mut xml = String::with_capacity(512 + changes.len() * 400);
    xml.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    let _ = write!(
        xml,
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"{}\">\n\
         <id>{}</id>\n<title>{}</title>\n<subtitle>{}</subtitle>\n<updated>{}</updated>\n\
         <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>\n\
         <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n\
         <author><name>{}</name></author>\n",
        lang.html_lang(),
        escape(&feed_url),
        escape(t.title),
        escape(t.subtitle),
        format_iso(updated),
        escape(&format!(
            "{feed_url}{}lang={}",
            if filter.query().is_empty() { "?" } else { "&" },
            lang.code()
        )),
        escape(&format!("{base}/{}", lang.code())),
        escape(author),
    );
    for change in changes {
        let plan = catalog
            .plan(&change.plan_id)
            .map_or(change.plan_id.as_str(), |p| p.name.as_str());
        let city = catalog
            .site(&change.site_code)
            .map_or(change.site_code.as_str(), |s| s.city.get(lang));
        let band = change.band.replace('-', "–");
        let state = match change.level {
            "in_stock" => (t.in_stock)(&band),
            "few" => (t.few)(&band),
            _ => t.sold_out.to_owned(),
        };
        let link = format!(
            "{base}/{}/configure?plan={}&site={}",
            lang.code(),
            change.plan_id,
            change.site_code
        );
        let _ = write!(
            xml,
            "<entry>\n<id>urn:uuid:{}</id>\n<title>{}</title>\n<updated>{}</updated>\n\
             <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>\n\
             <category term=\"{}\" label=\"{}\"/>\n</entry>\n",
            escape(&change.id),
            escape(&format!("{plan} · {city}{}{state}", t.colon)),
            format_iso(change.changed_at),
            escape(&link),
            escape(change.level),
            escape(&band),
        );
    }
    xml.push_str("</feed>\n");
    xml
}

/// Text for XML content and attribute values.
fn escape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape("a<b> & \"c\" 'd'"),
            "a&lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;"
        );
    }
}
