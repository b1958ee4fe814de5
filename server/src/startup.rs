//! Building the application: database, state, router, listener. Tests start
//! the real application on port 0 through `Application::build`.

use anyhow::Context;
use app::context::SiteInfo;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::get;
use axum::Router;
use backend::{Clock, Db};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::timeout::TimeoutLayer;

use crate::config::Config;
use crate::facts::FactsCache;
use crate::http::{headers, health, lang, page_cache, seo};
use crate::metrics::Metrics;

pub struct AppState {
    pub config: Config,
    pub db: Db,
    pub clock: Clock,
    pub facts: FactsCache,
    pub pages: page_cache::PageCache,
    pub metrics: Metrics,
}

pub struct Application {
    port: u16,
    listener: TcpListener,
    router: Router,
    pub state: Arc<AppState>,
}

/// Connects, migrates and, in development, seeds the demo inventory once.
pub async fn prepare_database(config: &Config, clock: &Clock) -> anyhow::Result<Db> {
    let db = Db::connect(
        config.database_url.expose(),
        config.database_max_connections,
    )
    .await?;
    db.migrate().await?;
    if config.development() {
        let added = backend::demo::seed_if_empty(&db, clock).await?;
        if added > 0 {
            tracing::info!(hosts = added, "seeded the demo inventory");
        }
    }
    Ok(db)
}

impl Application {
    pub async fn build(config: Config) -> anyhow::Result<Application> {
        Application::build_with_clock(config, Clock::system()).await
    }

    pub async fn build_with_clock(config: Config, clock: Clock) -> anyhow::Result<Application> {
        let db = prepare_database(&config, &clock).await?;
        let facts = FactsCache::start(db.clone(), clock.clone(), config.development()).await?;
        let state = Arc::new(AppState {
            config: config.clone(),
            db,
            clock,
            facts,
            pages: page_cache::PageCache::default(),
            metrics: Metrics::new(),
        });
        let router = router(state.clone());
        let listener = TcpListener::bind(config.listen_addr)
            .await
            .with_context(|| format!("binding {}", config.listen_addr))?;
        let port = listener
            .local_addr()
            .context("reading the bound port")?
            .port();
        Ok(Application {
            port,
            listener,
            router,
            state,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then finishes in-flight requests.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        axum::serve(self.listener, self.router)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .context("serving HTTP")
    }
}

pub async fn serve(config: Config) -> anyhow::Result<()> {
    let app = Application::build(config.clone()).await?;
    tracing::info!(port = app.port(), base_url = %config.public_base_url, environment = ?config.environment, "listening");
    app.run_until_stopped().await?;
    tracing::info!("stopped");
    Ok(())
}

fn router(state: Arc<AppState>) -> Router {
    let options = LeptosOptions::builder()
        .output_name("gpu-storefront")
        .site_root(state.config.site_root.to_string_lossy().to_string())
        .site_pkg_dir("pkg")
        .build();
    let site_info = SiteInfo {
        base_url: state
            .config
            .public_base_url
            .trim_end_matches('/')
            .to_owned(),
        development: state.config.development(),
    };
    let context = move || provide_context(site_info.clone());
    let routes = generate_route_list(app::App);
    let shell = {
        let options = options.clone();
        move || app::shell(options.clone())
    };

    let storefront = Router::new()
        .leptos_routes_with_context(&options, routes, context.clone(), shell.clone())
        .with_state(options.clone())
        // Rendering may be slow; a cached page is served before this layer.
        .layer(TimeoutLayer::with_status_code(
            http::StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(20),
        ))
        .layer(from_fn_with_state(state.clone(), page_cache::storefront));

    // Static assets, then the designed 404 page for anything else.
    let not_found = Router::new()
        .fallback(leptos_axum::render_app_to_stream_with_context(
            context, shell,
        ))
        .layer(from_fn_with_state(state.clone(), page_cache::storefront));
    let assets = ServeDir::new(&state.config.site_root).fallback(not_found);

    let secure = !state.config.development();
    Router::new()
        .route("/", get(lang::root))
        .route("/{lang}/", get(lang::trailing_slash))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(health::metrics))
        .route("/sitemap.xml", get(seo::sitemap))
        .route("/robots.txt", get(seo::robots))
        // Before `/{lang}` claims it.
        .route_service(
            "/favicon.svg",
            ServeFile::new(state.config.site_root.join("favicon.svg")),
        )
        .merge(storefront)
        .fallback_service(assets)
        .layer(from_fn(move |req, next| lang::remember(secure, req, next)))
        .layer(from_fn_with_state(state.clone(), headers::record_metrics))
        .layer(from_fn_with_state(state.clone(), headers::security_headers))
        .layer(CompressionLayer::new().gzip(true))
        .with_state(state)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
