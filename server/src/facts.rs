//! The storefront's facts (catalog, stock, latency), re-read only when the
//! database says something may have changed, and numbered so cached pages
//! know which facts they were rendered from.

use anyhow::Context;
use app::context::StorefrontFacts;
use backend::stock_watch::StockWatch;
use backend::{catalog, inventory, latency, Clock, Db};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, RwLock};

pub struct FactsCache {
    db: Db,
    clock: Clock,
    watch: StockWatch,
    /// Show distance estimates while no measurements exist (development).
    estimates: bool,
    current: RwLock<Current>,
    /// When the database last confirmed the facts: what a page served while
    /// the database is unreachable says its stock is "as of".
    confirmed_at: AtomicI64,
}

#[derive(Clone)]
struct Current {
    token: Option<u64>,
    generation: u64,
    facts: Arc<StorefrontFacts>,
}

/// Facts and the generation that numbers them.
#[derive(Clone)]
pub struct Versioned {
    pub generation: u64,
    pub facts: Arc<StorefrontFacts>,
}

impl FactsCache {
    pub async fn start(db: Db, clock: Clock, estimates: bool) -> anyhow::Result<FactsCache> {
        let watch = StockWatch::start(&db).await?;
        let empty = Current {
            token: None,
            generation: 0,
            facts: Arc::new(StorefrontFacts::default()),
        };
        Ok(FactsCache {
            db,
            clock,
            watch,
            estimates,
            current: RwLock::new(empty),
            confirmed_at: AtomicI64::new(0),
        })
    }

    /// The facts as they are now: reused when the database has not changed
    /// and no hold has expired since they were read, re-read otherwise.
    pub async fn current(&self) -> anyhow::Result<Versioned> {
        let token = self.watch.token().await?;
        let now = self.clock.now();
        // The token was read after `now` began: the facts it vouches for are
        // current as of `now`.
        self.confirmed_at.fetch_max(now, Ordering::Relaxed);
        {
            let current = self
                .current
                .read()
                .map_err(|_| anyhow::anyhow!("facts lock poisoned"))?;
            let unexpired = current
                .facts
                .stock
                .valid_until
                .is_none_or(|until| now < until);
            if current.token == Some(token) && unexpired {
                return Ok(Versioned {
                    generation: current.generation,
                    facts: current.facts.clone(),
                });
            }
        }
        let fresh = self.read().await?;
        let mut current = self
            .current
            .write()
            .map_err(|_| anyhow::anyhow!("facts lock poisoned"))?;
        let same = current.generation > 0
            && current.facts.catalog == fresh.catalog
            && current.facts.stock.same_stock(&fresh.stock)
            && current.facts.latency == fresh.latency;
        // Tokens only grow; a slower reader that started before a newer one
        // must not put older facts back.
        if current.token.is_none_or(|t| token >= t) {
            current.token = Some(token);
            if !same {
                current.generation += 1;
                current.facts = Arc::new(fresh);
            }
            return Ok(Versioned {
                generation: current.generation,
                facts: current.facts.clone(),
            });
        }
        // Our read is older than what is cached: answer with it, uncached.
        Ok(Versioned {
            generation: 0,
            facts: Arc::new(fresh),
        })
    }

    /// The last moment the database confirmed the facts (0: never).
    pub fn confirmed_at(&self) -> i64 {
        self.confirmed_at.load(Ordering::Relaxed)
    }

    async fn read(&self) -> anyhow::Result<StorefrontFacts> {
        let catalog = Arc::new(
            catalog::load(&self.db)
                .await
                .context("reading the catalog")?,
        );
        let stock = inventory::stock_snapshot(&self.db, &self.clock).await?;
        let mut rows = latency::measured(&self.db).await?;
        if rows.is_empty() && self.estimates {
            rows = latency::estimates(&catalog, self.clock.now());
        }
        Ok(StorefrontFacts {
            catalog,
            stock,
            latency: Arc::new(rows),
        })
    }
}
