//! Mail delivery over SMTP (lettre), when `SMTP_URL` is set. Messages are
//! queued in the outbox with the change that causes them; this worker
//! sends them, retries failures with growing pauses, and works beside other
//! replicas (each message is claimed before it is sent).

use anyhow::Context;
use backend::{mail, Clock, Db};
use lettre::message::{header::ContentType, Mailbox};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use std::time::Duration;

pub struct SmtpMailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl SmtpMailer {
    /// `smtp://user:pass@host:587?tls=required`, `smtps://…:465`, or
    /// `smtp://host:25` (no TLS: only for a relay on the same machine).
    pub fn new(url: &str, from: &str) -> anyhow::Result<SmtpMailer> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| anyhow::anyhow!("SMTP_URL is not a valid SMTP address: {e}"))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        let from = from
            .parse()
            .with_context(|| format!("MAIL_FROM {from:?} is not a mailbox"))?;
        Ok(SmtpMailer { transport, from })
    }

    async fn send(&self, entry: &mail::OutboxEntry) -> anyhow::Result<()> {
        let message = Message::builder()
            .from(self.from.clone())
            .to(entry
                .to
                .parse()
                .with_context(|| format!("recipient {:?}", entry.to))?)
            .subject(entry.subject.clone())
            .header(ContentType::TEXT_PLAIN)
            .body(entry.body.clone())
            .context("building the message")?;
        self.transport
            .send(message)
            .await
            .context("sending over SMTP")?;
        Ok(())
    }
}

/// Runs until the process stops: every two seconds, sends what is queued.
pub fn spawn_delivery(db: Db, clock: Clock, mailer: SmtpMailer) {
    tokio::spawn(async move {
        loop {
            if let Err(error) = deliver_batch(&db, &clock, &mailer).await {
                tracing::warn!(error = %format!("{error:#}"), "mail delivery round failed");
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    });
}

async fn deliver_batch(db: &Db, clock: &Clock, mailer: &SmtpMailer) -> anyhow::Result<()> {
    for entry in mail::claim(db, clock.now(), 20).await? {
        match mailer.send(&entry).await {
            Ok(()) => mail::mark_sent(db, &entry, clock.now()).await?,
            Err(error) => {
                // The recipient is logged, the message body never is.
                tracing::warn!(to = %entry.to, error = %format!("{error:#}"), "mail not sent; will retry");
                mail::mark_failed(db, &entry.id, &format!("{error:#}"), clock.now()).await?;
            }
        }
    }
    Ok(())
}
