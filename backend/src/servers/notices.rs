//! Mail to a server's team about what happened to it without anyone asking:
//! hardware faults, rebuilds, maintenance. Such events are recorded unmailed
//! (`record_event`); housekeeping on any replica claims each one once and
//! queues its mail in the same transaction, so a crash between the two
//! neither loses nor doubles a notice.

use anyhow::Context;
use domain::server::EventKind;
use domain::{Lang, OrganizationId, ServerId};
use sqlx::Row;

use super::mail_texts::{self, Notice};
use crate::{mail, Clock, Db};

/// Event kinds the owners and technical members hear about by mail.
const MAILED: &[EventKind] = &[
    EventKind::HostFailed,
    EventKind::RebuildWaiting,
    EventKind::Rebuilt,
    EventKind::HostDegraded,
    EventKind::MaintenanceProposed,
    EventKind::MaintenanceAccepted,
];

pub fn mailed_about(kind: EventKind) -> bool {
    MAILED.contains(&kind)
}

/// Queues the mail for events not yet mailed; returns how many events were
/// sent out.
pub async fn send_due(db: &Db, clock: &Clock, base_url: &str) -> anyhow::Result<u64> {
    let due = sqlx::query(
        "select e.id, e.server_id, e.kind, e.detail, e.at, s.name, s.organization_id \
         from server_events e join servers s on s.id = e.server_id \
         where e.mailed = 0 order by e.at limit 100",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading unmailed server events")?;
    let mut sent = 0;
    for row in due {
        let event_id: String = row.try_get("id")?;
        let server_id: ServerId = row.try_get("server_id")?;
        let kind: EventKind = row.try_get("kind")?;
        let detail: String = row.try_get("detail")?;
        let at: i64 = row.try_get("at")?;
        let name: String = row.try_get("name")?;
        let organization: OrganizationId = row.try_get("organization_id")?;
        let mut tx = db.begin().await?;
        let claimed =
            sqlx::query("update server_events set mailed = 1 where id = $1 and mailed = 0")
                .bind(&event_id)
                .execute(&mut *tx)
                .await
                .context("claiming the event")?;
        if claimed.rows_affected() != 1 {
            continue;
        }
        let window = window_of(&mut tx, &server_id, kind).await?;
        // Billing members see money only; the server's news goes to the
        // people who run it.
        let team = sqlx::query(
            "select u.email, u.lang from memberships m join users u on u.id = m.user_id \
             where m.organization_id = $1 and m.role in ('owner', 'technical') \
             and u.email_verified_at is not null order by u.email",
        )
        .bind(&organization)
        .fetch_all(&mut *tx)
        .await
        .context("reading the server's team")?;
        for member in team {
            let to: String = member.try_get("email")?;
            let lang = Lang::from_code(&member.try_get::<String, _>("lang")?).unwrap_or_default();
            let link = format!(
                "{}/{}/servers/{server_id}",
                base_url.trim_end_matches('/'),
                lang.code()
            );
            let notice = Notice {
                to: &to,
                server: &name,
                kind,
                detail: &detail,
                at,
                window,
                link: &link,
            };
            if let Some(message) = mail_texts::notice(lang, &notice) {
                mail::queue(&mut tx, &message, clock.now()).await?;
            }
        }
        tx.commit().await.context("committing")?;
        sent += 1;
    }
    Ok(sent)
}

/// Tells the organization's owners that a server's cancellation was
/// scheduled or taken back, each in their language, in the transaction
/// that made the change (so a rolled-back change mails nobody). Owners,
/// not the whole team: it ends billing and wipes the server. Cancellations
/// Stripe decided are told by billing (`dunning::notify`) instead.
pub(crate) async fn tell_owners(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    by: &super::Actor<'_>,
    server: (&str, &str),
    change: mail_texts::Cancellation,
    base_url: &str,
    now: i64,
) -> anyhow::Result<()> {
    let (server_id, server_name) = server;
    let owners = sqlx::query(
        "select u.email, u.lang from memberships m join users u on u.id = m.user_id \
         where m.organization_id = $1 and m.role = 'owner' \
         and u.email_verified_at is not null order by u.email",
    )
    .bind(by.organization_id)
    .fetch_all(&mut **tx)
    .await
    .context("reading the organization's owners")?;
    for owner in owners {
        let to: String = owner.try_get("email")?;
        let lang = Lang::from_code(&owner.try_get::<String, _>("lang")?).unwrap_or_default();
        let link = format!(
            "{}/{}/servers/{server_id}",
            base_url.trim_end_matches('/'),
            lang.code()
        );
        let mail = mail_texts::CancellationMail {
            to: &to,
            server: server_name,
            by: by.email,
            change,
            link: &link,
        };
        mail::queue(tx, &mail_texts::cancellation(lang, &mail), now).await?;
    }
    Ok(())
}

/// The window a maintenance notice is about: the newest one in the state
/// the event announces.
async fn window_of(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    server_id: &ServerId,
    kind: EventKind,
) -> anyhow::Result<Option<(i64, i64)>> {
    let state = match kind {
        EventKind::MaintenanceProposed => "proposed",
        EventKind::MaintenanceAccepted => "accepted",
        _ => return Ok(None),
    };
    let row = sqlx::query(
        "select starts_at, ends_at from maintenance_windows where server_id = $1 and state = $2 \
         order by created_at desc limit 1",
    )
    .bind(server_id)
    .bind(state)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the maintenance window")?;
    row.map(|r| Ok((r.try_get("starts_at")?, r.try_get("ends_at")?)))
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mailed kind has its text in both languages, naming the server
    /// and linking its page; maintenance mails give the window.
    #[test]
    fn every_mailed_kind_has_a_mail_in_both_languages() {
        for &kind in MAILED {
            for lang in [Lang::Zh, Lang::En] {
                let notice = Notice {
                    to: "ops@example.com",
                    server: "trainer-7",
                    kind,
                    detail: "Xid 79",
                    at: 1_794_268_800,
                    window: Some((1_794_276_000, 1_794_283_200)),
                    link: "https://gpu.example.com/x/servers/1",
                };
                let message = mail_texts::notice(lang, &notice)
                    .unwrap_or_else(|| panic!("{kind} has no {lang:?} mail"));
                assert!(message.subject.contains("trainer-7"), "{kind} {lang:?}");
                assert!(message.body.contains(notice.link), "{kind} {lang:?}");
                if kind.as_str().starts_with("maintenance.") {
                    assert!(
                        message
                            .body
                            .contains("2026-11-10 02:00:00 UTC – 2026-11-10 04:00:00 UTC"),
                        "{kind} {lang:?}: {}",
                        message.body
                    );
                }
            }
        }
        assert!(
            !mailed_about(EventKind::SnapshotReady),
            "routine events are not mailed"
        );
    }

    /// Owners hear of a cancellation and of its revocation in their
    /// language, with the date that now holds and the server's page.
    #[test]
    fn cancellation_mails_name_the_date_in_both_languages() {
        let changes = [
            mail_texts::Cancellation::Scheduled {
                ends_at: 1_798_761_600,
            },
            mail_texts::Cancellation::Revoked {
                renews_at: Some(1_798_761_600),
            },
        ];
        for change in changes {
            for lang in [Lang::Zh, Lang::En] {
                let mail = mail_texts::CancellationMail {
                    to: "owner@example.com",
                    server: "trainer-7",
                    by: "ops@example.com",
                    change,
                    link: "https://gpu.example.com/x/servers/1",
                };
                let message = mail_texts::cancellation(lang, &mail);
                assert!(message.subject.contains("trainer-7"), "{change:?} {lang:?}");
                assert!(message.body.contains("2027-01-01"), "{message:?}");
                assert!(message.body.contains(mail.link), "{message:?}");
                assert!(message.body.contains(mail.by), "{message:?}");
            }
        }
    }
}
