//! Building the application: database, state, router, listener. Tests start
//! the real application on port 0 through `Application::build`.

use anyhow::Context;
use app::context::SiteInfo;
use axum::extract::State;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};
use axum::Router;
use backend::{Clock, Db};
use leptos::prelude::*;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::timeout::TimeoutLayer;

use crate::config::Config;
use crate::facts::FactsCache;
use crate::http::session_store::DbSessionStore;
use crate::http::{auth, headers, health, input, lang, page, page_cache, routes, seo};
use crate::metrics::Metrics;
use tower_sessions::cookie::SameSite;
use tower_sessions::{Expiry, SessionManagerLayer};

pub struct AppState {
    pub config: Config,
    pub sealer: backend::sealing::Sealer,
    pub leptos_options: LeptosOptions,
    pub site_info: SiteInfo,
    pub db: Db,
    pub clock: Clock,
    pub facts: FactsCache,
    pub pages: page_cache::PageCache,
    pub metrics: Metrics,
    /// How orders are paid: offline invoices by default.
    pub billing: Arc<dyn backend::billing::Billing>,
    /// Who issues the invoices (with `vat_ids`, for the worker's invoice run).
    pub seller: backend::billing::Seller,
    /// Where VAT IDs are confirmed before reverse charge (`VIES`).
    pub vat_ids: Arc<dyn backend::billing::vies::VatIdRegistry>,
    /// The font of invoice PDFs, read once; `None` if it can't be read (the
    /// PDF link then answers "unavailable" and the log says why).
    pub invoice_font: Option<Arc<Vec<u8>>>,
    /// The data-centre control plane: simulated, or Redfish (`FLEET`).
    pub fleet: Arc<dyn backend::fleet::Fleet>,
    /// The Redfish Fleet, whatever `FLEET` says: staff check hosts' BMCs
    /// with it before the switch.
    pub redfish: backend::fleet::redfish::RedfishFleet,
    /// Set when Stripe is configured.
    pub stripe: Option<backend::billing::stripe::StripeClient>,
}

pub struct Application {
    port: u16,
    listener: TcpListener,
    router: Router,
    /// `METRICS_ADDR`'s listener, serving `/metrics` only.
    metrics: Option<(TcpListener, Router)>,
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
        if !config.development() {
            return Application::build_with_clock(config, Clock::system()).await;
        }
        // Development: the clock follows the offset `server clock advance`
        // stores, checked every second.
        let clock = Clock::adjustable();
        let app = Application::build_with_clock(config, clock.clone()).await?;
        let db = app.state.db.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                match backend::clock::stored_offset(&db).await {
                    Ok(seconds) => clock.set_offset(seconds),
                    Err(error) => {
                        tracing::debug!(error = %format!("{error:#}"), "reading the clock offset")
                    }
                }
            }
        });
        Ok(app)
    }

    pub async fn build_with_clock(config: Config, clock: Clock) -> anyhow::Result<Application> {
        let db = prepare_database(&config, &clock).await?;
        let facts = FactsCache::start(db.clone(), clock.clone(), config.development()).await?;
        if let Some(url) = &config.smtp_url {
            let mailer = crate::mailer::SmtpMailer::new(url.expose(), &config.mail_from)?;
            crate::mailer::spawn_delivery(db.clone(), clock.clone(), mailer);
        }
        let leptos_options = LeptosOptions::builder()
            .output_name("gpu-storefront")
            .site_root(config.site_root.to_string_lossy().to_string())
            .site_pkg_dir("pkg")
            .build();
        let site_info = SiteInfo {
            base_url: config.public_base_url.trim_end_matches('/').to_owned(),
            development: config.development(),
            company: app::context::Company {
                legal_name: config.seller_name.clone(),
                address: config.seller_address.clone(),
                register: config.seller_register.clone(),
                vat_id: config.seller_vat_id.clone(),
                support_email: config.support_email.clone(),
            },
        };
        let sealer = config.sealer()?;
        if !config.development() && config.seller_iban.contains("TEST") {
            anyhow::bail!("SELLER_IBAN (and the other SELLER_* settings) must be set in production: invoices print them");
        }
        // The imprint and the support page print these: a placeholder
        // would be a false legal notice and an address nobody reads.
        if !config.development()
            && (config.seller_register.contains("(development)")
                || config.support_email.ends_with("@example.com"))
        {
            anyhow::bail!(
                "SELLER_REGISTER and SUPPORT_EMAIL must be set in production: the imprint and the support page print them"
            );
        }
        let stripe = match &config.stripe_secret_key {
            Some(key) => Some(backend::billing::stripe::StripeClient::new(
                &config.stripe_api_base,
                key.expose(),
            )?),
            None => None,
        };
        let invoice_font = match backend::billing::pdf::load_font(&config.invoice_font) {
            Ok(font) => Some(Arc::new(font)),
            Err(error) => {
                tracing::warn!(error = %format!("{error:#}"), "invoice PDFs are unavailable");
                None
            }
        };
        let vat_ids = config.vat_id_registry()?;
        let redfish = config.redfish_fleet(&db, &sealer, &clock)?;
        let fleet: Arc<dyn backend::fleet::Fleet> = match config.fleet {
            crate::config::FleetKind::Redfish => Arc::new(redfish.clone()),
            crate::config::FleetKind::Dev => Arc::new(
                backend::fleet::dev::DevFleet::new(
                    Duration::from_millis(config.fleet_dev_step_ms),
                    config.fleet_dev_faulty_hosts.iter().cloned(),
                )
                .keeping_disks_in(db.clone())
                .degrading(config.fleet_dev_degrading_hosts.iter().cloned()),
            ),
        };
        let state = Arc::new(AppState {
            config: config.clone(),
            sealer,
            leptos_options,
            site_info,
            db,
            clock,
            facts,
            pages: page_cache::PageCache::default(),
            metrics: Metrics::new(),
            billing: match &stripe {
                Some(client) => Arc::new(backend::billing::stripe::StripeBilling {
                    client: client.clone(),
                    seller_country: config.seller(vat_ids.clone()).country,
                }),
                None => Arc::new(backend::billing::InvoiceBilling),
            },
            stripe,
            seller: config.seller(vat_ids.clone()),
            vat_ids: vat_ids.clone(),
            invoice_font,
            fleet: fleet.clone(),
            redfish,
        });
        if config.run_workers {
            let runner = backend::worker::Runner {
                db: state.db.clone(),
                clock: state.clock.clone(),
                fleet,
                sealer: state.sealer.clone(),
                owner: format!("worker-{}", backend::db::new_id()),
                base_url: config.public_base_url.clone(),
                vat_ids,
                seller_country: state.seller.country.clone(),
                stripe: state.stripe.clone(),
            };
            crate::worker::spawn(state.clone(), runner);
        }
        let router = router(state.clone());
        let listener = TcpListener::bind(config.listen_addr)
            .await
            .with_context(|| format!("binding {}", config.listen_addr))?;
        let port = listener
            .local_addr()
            .context("reading the bound port")?
            .port();
        let metrics = match config.metrics_addr {
            Some(addr) => {
                let listener = TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("binding METRICS_ADDR {addr}"))?;
                let router = Router::new()
                    .route("/metrics", get(health::metrics))
                    .with_state(state.clone());
                Some((listener, router))
            }
            None => {
                if !config.development() {
                    tracing::warn!("no METRICS_ADDR: /metrics is not served");
                }
                None
            }
        };
        Ok(Application {
            port,
            listener,
            router,
            metrics,
            state,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGINT/SIGTERM, then finishes in-flight requests.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        if let Some((listener, router)) = self.metrics {
            let mut stopped = stopped.clone();
            tokio::spawn(async move {
                let served = axum::serve(listener, router)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.wait_for(|s| *s).await;
                    })
                    .await;
                if let Err(error) = served {
                    tracing::error!(%error, "serving /metrics failed");
                }
            });
        }
        // TCP_NODELAY: a response written in pieces (headers, then a file's
        // body or a streamed page) would otherwise wait for the client's
        // delayed ACK, 40 ms on Linux, on every keep-alive request.
        use axum::serve::ListenerExt;
        let listener = self.listener.tap_io(|tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::debug!(%error, "cannot set TCP_NODELAY");
            }
        });
        axum::serve(
            listener,
            self.router
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        })
        .await
        .context("serving HTTP")
    }
}

pub async fn serve(config: Config) -> anyhow::Result<()> {
    config.check_safe_to_serve()?;
    let app = Application::build(config.clone()).await?;
    tracing::info!(port = app.port(), base_url = %config.public_base_url, environment = ?config.environment, "listening");
    app.run_until_stopped().await?;
    tracing::info!("stopped");
    Ok(())
}

/// Every route of the application as (method, path pattern).
pub fn route_inventory() -> Vec<(String, String)> {
    // The islands' server functions too: each needs its row like a page.
    let server_fns = leptos::server_fn::axum::server_fn_paths()
        .map(|(path, method)| (method.to_string(), path.to_owned()));
    routes::inventory().into_iter().chain(server_fns).collect()
}

fn router(state: Arc<AppState>) -> Router {
    // Rendering spawns on Leptos' executor: tokio's. A second router in the
    // same process (tests) finds it set, which is fine.
    let _ = any_spawner::Executor::init_tokio();
    let declared = routes::all();
    let rules = Arc::new(routes::Rules::new(&declared));
    let (storefront_routes, portal_routes_declared): (Vec<_>, Vec<_>) = declared
        .into_iter()
        .partition(|r| r.access == routes::Access::Storefront);
    let mut storefront: Router<Arc<AppState>> = Router::new();
    for route in storefront_routes {
        storefront = storefront.route(route.path, route.handler);
    }
    let storefront = storefront
        // Rendering may be slow; a cached page is served before this layer.
        .layer(TimeoutLayer::with_status_code(
            http::StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(20),
        ))
        .layer(from_fn_with_state(state.clone(), page_cache::storefront));

    let secure = !state.config.development();
    let sessions = SessionManagerLayer::new(DbSessionStore {
        db: state.db.clone(),
        clock: state.clock.clone(),
    })
    .with_name(if secure { "__Host-session" } else { "session" })
    .with_secure(secure)
    .with_http_only(true)
    .with_same_site(SameSite::Lax)
    .with_path("/")
    .with_expiry(Expiry::OnInactivity(
        tower_sessions::cookie::time::Duration::seconds(backend::sessions::IDLE_SECS),
    ));
    let mut portal_routes: Router<Arc<AppState>> = Router::new();
    for route in portal_routes_declared {
        portal_routes = portal_routes.route(route.path, route.handler);
    }
    let pages = page::Pages {
        state: state.clone(),
        rules,
        router: portal_routes.clone().with_state(state.clone()),
    };
    // The islands' server functions: read-only, with the caller known
    // from the session (the order quote prices for their organization).
    let islands: Router<Arc<AppState>> = Router::new()
        .route(
            crate::pages::orders::quote::PATH,
            post(crate::pages::orders::quote::server_fn),
        )
        .layer(from_fn_with_state(pages.clone(), auth::load_viewer))
        .layer(sessions.clone());
    let not_found_page = {
        let state = state.clone();
        move |req: axum::extract::Request| {
            let state = state.clone();
            async move { page::not_found(&state, req.into_parts().0).await }
        }
    };
    let portal_router = portal_routes
        .layer(from_fn_with_state(pages.clone(), page::show_failures))
        .layer(from_fn_with_state(pages, auth::load_viewer))
        .layer(from_fn_with_state(state.clone(), input::refuse_unstorable))
        .layer(from_fn_with_state(state.clone(), auth::reject_cross_site))
        .layer(sessions)
        .layer(from_fn(move |req, next| {
            lang::known_language(not_found_page.clone(), req, next)
        }))
        // Outside the access check and the language check: the pages they
        // answer with (log in first, not allowed, not found) are cleaned
        // of Leptos' inline resource scripts too, which the CSP refuses.
        .layer(from_fn(page_cache::clean_html))
        .layer(TimeoutLayer::with_status_code(
            http::StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(20),
        ));

    // Static assets, then the designed 404 page for anything else.
    let not_found = Router::new()
        .fallback(
            |State(state): State<Arc<AppState>>, req: axum::extract::Request| async move {
                page::not_found(&state, req.into_parts().0).await
            },
        )
        .layer(from_fn_with_state(state.clone(), page_cache::storefront))
        .with_state(state.clone());
    let assets = ServeDir::new(&state.config.site_root).fallback(not_found);

    // Files at the root, before `/{lang}` claims their paths.
    let mut router = Router::new();
    for file in [
        "favicon.svg",
        "islands.js",
        "console.js",
        "copy.js",
        "snapshots.js",
    ] {
        let path = format!("/{file}");
        router = router.route_service(&path, ServeFile::new(state.config.site_root.join(file)));
    }
    if state.config.development() {
        // Development stays on this machine (`Config::check_safe_to_serve`):
        // its metrics may be on the public listener. Production serves them
        // only on METRICS_ADDR.
        router = router.route("/metrics", get(health::metrics));
    }
    let loopback_only = state.config.development_on_loopback_only();
    let router = router
        .route("/", get(lang::root))
        .route("/{lang}/", get(lang::trailing_slash))
        .route("/stripe/webhook", post(crate::http::stripe::webhook))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/sitemap.xml", get(seo::sitemap))
        .route("/robots.txt", get(seo::robots))
        .merge(islands)
        // The public API: bearer tokens, no session, JSON errors.
        .merge(crate::http::api::router(state.clone()))
        // The consoles' libraries (scripts/setup.sh puts them there).
        .nest_service(
            "/vendor",
            ServeDir::new(state.config.site_root.join("vendor")),
        )
        .merge(storefront)
        .merge(portal_router)
        .fallback_service(assets)
        .layer(from_fn(move |req, next| lang::remember(secure, req, next)))
        .layer(from_fn_with_state(state.clone(), headers::record_metrics))
        .layer(from_fn_with_state(state.clone(), headers::security_headers))
        .layer(CompressionLayer::new().gzip(true))
        // Machines only (BMCs, booted installers): ranges of raw bytes,
        // never compressed, no session.
        .merge(crate::http::fleet_boots::router())
        .layer(from_fn(move |req, next| {
            headers::refuse_proxied_development(loopback_only, req, next)
        }))
        .with_state(state.clone());
    // A cached storefront page is answered before all of the above, as it
    // would answer.
    Router::new().fallback_service(page_cache::AnswerHits::new(state, loopback_only, router))
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
