//! Running jobs: what a worker needs, and which capability runs each kind
//! of job (`JobKind`). The server's worker loop claims a job, hands it here
//! and records the outcome; the capabilities do the work (servers:
//! provisioning, power, snapshots, wipes; billing: VAT ID checks and the
//! Stripe jobs).

use domain::{OrderId, OrganizationId};
use std::sync::Arc;

use crate::billing::stripe::{credits, customers, events, payments, StripeClient};
use crate::fleet::{Fleet, PowerAction};
use crate::jobs::{Job, JobKind, Outcome};
use crate::sealing::Sealer;
use crate::{Clock, Db};

/// What a worker needs to run jobs.
#[derive(Clone)]
pub struct Runner {
    pub db: Db,
    pub clock: Clock,
    pub fleet: Arc<dyn Fleet>,
    pub sealer: Sealer,
    /// This worker's name in job leases.
    pub owner: String,
    /// Where links in mail point: `https://gpu.example.com`.
    pub base_url: String,
    /// VIES, for the job that asks again about a VAT ID it could not
    /// answer for.
    pub vat_ids: Arc<dyn crate::billing::vies::VatIdRegistry>,
    /// Where the seller is established (reverse charge on Stripe
    /// customers).
    pub seller_country: String,
    /// Set when Stripe is configured on this replica.
    pub stripe: Option<StripeClient>,
}

impl Runner {
    pub async fn run(&self, job: &Job) -> Outcome {
        let result = match job.kind {
            JobKind::Provision => self.provision(job).await,
            JobKind::Reboot => self.power(job, PowerAction::Reboot).await,
            JobKind::PowerCycle => self.power(job, PowerAction::PowerCycle).await,
            JobKind::PowerOff => self.power(job, PowerAction::PowerOff).await,
            JobKind::PowerOn => self.power(job, PowerAction::PowerOn).await,
            JobKind::Rebuild => self.rebuild(job).await,
            JobKind::Wipe => self.wipe(job).await,
            JobKind::Suspend | JobKind::Resume => self.network(job).await,
            JobKind::SnapshotTake => self.take_snapshot(job).await,
            JobKind::SnapshotRestore => self.restore_snapshot(job).await,
            JobKind::SnapshotDelete => self.delete_snapshot(job).await,
            JobKind::RootPassword => self.set_root_password(job).await,
            JobKind::VatIdCheck => {
                crate::billing::vat_ids::retry(
                    &self.db,
                    &self.clock,
                    self.vat_ids.as_ref(),
                    &OrganizationId::from(job.subject_id.as_str()),
                    job.attempts,
                )
                .await
            }
            JobKind::StripeEvent
            | JobKind::StripeCredit
            | JobKind::StripeUndeliverable
            | JobKind::StripeInvoicePayment
            | JobKind::StripeCustomer
            | JobKind::StripeSubscription => {
                return self.stripe_job(job).await;
            }
        };
        result.unwrap_or_else(|error| {
            tracing::error!(job = %job.id, error = %format!("{error:#}"), "job failed");
            Outcome::RetryAt(
                self.clock.now() + 10 * job.attempts.min(30),
                format!("{error:#}"),
            )
        })
    }

    /// Applying a Stripe event, passing an SLA credit on, giving back an
    /// undeliverable payment. Without Stripe configured here they wait for
    /// a replica that has it.
    async fn stripe_job(&self, job: &Job) -> Outcome {
        // Soon, so a replica that has the keys picks it up.
        let later = || {
            Outcome::RetryAt(
                self.clock.now() + 10,
                "Stripe is not configured on this replica".into(),
            )
        };
        let (db, clock, subject) = (&self.db, &self.clock, job.subject_id.as_str());
        if job.kind == JobKind::StripeEvent {
            // Verified when received: applying needs no secret.
            return events::apply(db, clock, subject, job.attempts).await;
        }
        let Some(client) = &self.stripe else {
            return later();
        };
        match job.kind {
            JobKind::StripeCredit => {
                credits::pass_on(db, clock, client, subject, job.attempts).await
            }
            JobKind::StripeInvoicePayment => {
                payments::learn_payment(db, clock, client, subject, job.attempts).await
            }
            JobKind::StripeSubscription => {
                events::refresh_subscription(db, clock, client, subject, job.attempts).await
            }
            JobKind::StripeCustomer => {
                let seller = self.seller_country.as_str();
                let organization = OrganizationId::from(subject);
                customers::sync(db, clock, client, seller, &organization, job.attempts).await
            }
            _ => {
                let order = OrderId::from(subject);
                payments::give_back(db, clock, client, &order, job.attempts).await
            }
        }
    }
}
