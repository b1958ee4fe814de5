//! Prometheus metrics, exposed at `/metrics`.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The matched route pattern (`/{lang}`), or `other`: never the raw path.
    pub route: String,
    pub method: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CacheLabels {
    pub result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct JobLabels {
    pub kind: String,
    /// `done`, `retry` or `dead`.
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QueueLabels {
    pub state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StockLabels {
    pub plan: String,
    pub site: String,
}

pub struct Metrics {
    pub registry: Registry,
    pub requests: Family<RequestLabels, Counter>,
    pub latency: Family<RequestLabels, Histogram>,
    pub page_cache: Family<CacheLabels, Counter>,
    /// Job runs finished by this replica.
    pub jobs_run: Family<JobLabels, Counter>,
    /// Jobs in the queue by state, read from the database at each scrape.
    pub jobs_queued: Family<QueueLabels, Gauge>,
    /// Stripe events stored but not applied (another API version) until an
    /// operator acts, read from the database at each scrape.
    pub stripe_events_held: Gauge,
    /// Housekeeping passes this replica's worker finished: a worker that
    /// stopped going round shows as a flat line.
    pub housekeeping_passes: Counter,
    /// 1 when the database answered at the scrape (what `/readyz` checks).
    pub ready: Gauge,
    /// Mail waiting to be sent, and the oldest one's wait in seconds.
    pub mail_pending: Gauge,
    pub mail_oldest_pending_seconds: Gauge,
    /// Free hosts per plan and site, for every pair with hosts racked.
    pub stock_free_hosts: Family<StockLabels, Gauge>,
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("gpu");
        let requests = Family::<RequestLabels, Counter>::default();
        let latency = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            Histogram::new([
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
            ])
        });
        let page_cache = Family::<CacheLabels, Counter>::default();
        registry.register("http_requests", "HTTP requests answered", requests.clone());
        registry.register(
            "http_request_duration_seconds",
            "Time to answer HTTP requests",
            latency.clone(),
        );
        registry.register(
            "storefront_page_cache",
            "Storefront pages served from cache (hit) or rendered (miss)",
            page_cache.clone(),
        );
        let jobs_run = Family::<JobLabels, Counter>::default();
        let jobs_queued = Family::<QueueLabels, Gauge>::default();
        registry.register(
            "jobs_run",
            "Background job runs finished by this replica, by kind and outcome",
            jobs_run.clone(),
        );
        registry.register(
            "jobs",
            "Background jobs in the database queue, by state",
            jobs_queued.clone(),
        );
        let stripe_events_held = Gauge::default();
        registry.register(
            "stripe_events_held",
            "Stripe webhook events stored but not applied (another API version), waiting for an operator",
            stripe_events_held.clone(),
        );
        let housekeeping_passes = Counter::default();
        registry.register(
            "housekeeping_passes",
            "Passes of the worker's periodic housekeeping (holds, invoices, cancellations, notices, alerts)",
            housekeeping_passes.clone(),
        );
        let ready = Gauge::default();
        registry.register(
            "ready",
            "1 if this replica's database answered at the scrape (what /readyz checks), else 0",
            ready.clone(),
        );
        let mail_pending = Gauge::default();
        registry.register(
            "mail_pending",
            "Mail waiting to be sent (not yet given up on)",
            mail_pending.clone(),
        );
        let mail_oldest_pending_seconds = Gauge::default();
        registry.register(
            "mail_oldest_pending_seconds",
            "How long the oldest mail waiting to be sent has waited, 0 when none",
            mail_oldest_pending_seconds.clone(),
        );
        let stock_free_hosts = Family::<StockLabels, Gauge>::default();
        registry.register(
            "stock_free_hosts",
            "Free hosts per plan and site, for every pair with hosts racked (0 is sold out)",
            stock_free_hosts.clone(),
        );
        Metrics {
            ready,
            mail_pending,
            mail_oldest_pending_seconds,
            stock_free_hosts,
            housekeeping_passes,
            stripe_events_held,
            registry,
            requests,
            latency,
            page_cache,
            jobs_run,
            jobs_queued,
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        // Encoding into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}
