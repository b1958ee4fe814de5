//! The benchmark's baseline: one file's bytes served as a static response
//! by the same HTTP stack (axum on tokio), so the storefront can be compared
//! with the cheapest possible answer on the same machine.
//!
//!     cargo run --release -p server --example static_page -- page.html 127.0.0.1:3901

use axum::body::Bytes;
use axum::routing::get;
use axum::Router;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let file = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: static_page FILE ADDR"))?;
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:3901".to_owned());
    let body = Bytes::from(std::fs::read(&file)?);
    let app = Router::new().fallback(get(move || {
        let body = body.clone();
        async move {
            (
                [(http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
                body,
            )
        }
    }));
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
