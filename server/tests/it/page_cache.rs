//! A cached storefront page is answered before the router
//! (`page_cache::answer_hit`). What a browser gets from it must be what
//! the full path gives: HEAD, and an `Accept-Encoding` with q-values, take
//! that path, so each is compared with a GET the cache answered.

use crate::common::{TestApp, TestDb};
use backend::Clock;
use reqwest::Method;
use std::io::Read;

on_both_databases!(a_cached_page_answers_as_the_full_path_would);

struct Answer {
    status: u16,
    /// Every header but the ones that differ by transfer (date, length).
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn text(&self) -> String {
        let gzip = self
            .headers
            .iter()
            .any(|(name, value)| name == "content-encoding" && value == "gzip");
        if !gzip {
            return String::from_utf8(self.body.clone()).expect("an HTML page");
        }
        let mut text = String::new();
        flate2::read::GzDecoder::new(&self.body[..])
            .read_to_string(&mut text)
            .expect("a gzipped HTML page");
        text
    }
}

async fn fetch(app: &TestApp, method: Method, headers: &[(&str, &str)]) -> Answer {
    let mut request = app.client.request(method, format!("{}/en", app.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.expect("sending the request");
    let status = response.status().as_u16();
    let mut headers: Vec<(String, String)> = response
        .headers()
        .iter()
        .filter(|(name, _)| {
            !matches!(
                name.as_str(),
                "date" | "content-length" | "transfer-encoding"
            )
        })
        .map(|(name, value)| {
            let value = value.to_str().expect("an ASCII header").to_owned();
            (name.as_str().to_owned(), value)
        })
        .collect();
    headers.sort();
    let body = response.bytes().await.expect("reading the body").to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

/// A counter's value in /metrics (0 before its first increment).
async fn counter(app: &TestApp, series: &str) -> u64 {
    let metrics = app.get("/metrics").await.body;
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(series)?.trim().parse().ok())
        .unwrap_or(0)
}

const HITS: &str = "gpu_storefront_page_cache_total{result=\"hit\"}";
const PAGE_GETS: &str = "gpu_http_requests_total{route=\"/{lang}\",method=\"GET\",status=\"200\"}";

async fn a_cached_page_answers_as_the_full_path_would(db: TestDb) {
    // A clock that stands still: every answer says the same "stock read
    // at", so bodies compare byte for byte.
    let app = TestApp::spawn_with_clock(db, Clock::manual(1_796_000_000)).await;
    // The first render fills the cache; one overtaken by a newer facts
    // read (start-up) is not kept, so ask until a hit, a few times at most.
    for _ in 0..10 {
        fetch(&app, Method::GET, &[]).await;
        if counter(&app, HITS).await > 0 {
            break;
        }
    }
    assert!(counter(&app, HITS).await > 0, "the page was never cached");

    let browsers: [&[(&str, &str)]; 4] = [
        &[],
        &[("accept-encoding", "gzip, deflate, br, zstd")],
        &[("accept-encoding", "br"), ("cookie", "lang=en")],
        &[("accept-encoding", "gzip"), ("cookie", "lang=zh; other=1")],
    ];
    for headers in browsers {
        let (hits, gets) = (counter(&app, HITS).await, counter(&app, PAGE_GETS).await);
        let cached = fetch(&app, Method::GET, headers).await;
        // Counted as every answer is: a cache hit of the route `/{lang}`.
        assert_eq!(counter(&app, HITS).await, hits + 1, "{headers:?}");
        assert_eq!(counter(&app, PAGE_GETS).await, gets + 1, "{headers:?}");
        let full = fetch(&app, Method::HEAD, headers).await;
        assert_eq!((cached.status, full.status), (200, 200), "{headers:?}");
        assert_eq!(cached.headers, full.headers, "{headers:?}");
        assert!(cached.text().ends_with("</html>"), "{headers:?}");
    }

    // Weighed encodings: the compression layer chooses; the same page.
    let weighed = fetch(
        &app,
        Method::GET,
        &[("accept-encoding", "gzip;q=1.0, identity;q=0.5")],
    )
    .await;
    let cached = fetch(&app, Method::GET, &[("accept-encoding", "gzip")]).await;
    assert_eq!(weighed.headers, cached.headers);
    assert_eq!(weighed.text(), cached.text());
    let plain = fetch(&app, Method::GET, &[]).await;
    assert_eq!(plain.text(), cached.text());
    app.finish().await;
}
