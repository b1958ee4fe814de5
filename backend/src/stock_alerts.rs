//! Back-in-stock alerts: anyone leaves an email for a plan at a site that
//! is sold out; when a host of that kind is free again, each open alert
//! gets one message in its language and closes. Every message carries an
//! unsubscribe link; the link's token is stored only as a hash.

use anyhow::Context;
use domain::{Catalog, Lang, UserId};
use sqlx::Row;

use crate::accounts::tokens;
use crate::db::new_id;
use crate::mail::{self, Message};
use crate::{Clock, Db};

#[derive(Debug, thiserror::Error)]
pub enum AlertError {
    #[error("not a valid email address")]
    InvalidEmail,
    #[error("unknown plan or site")]
    UnknownChoice,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

pub struct Subscription<'a> {
    pub email: &'a str,
    pub lang: Lang,
    pub plan: &'a str,
    pub site: &'a str,
    pub user_id: Option<&'a UserId>,
    /// Where links point: `https://gpu.example.com`.
    pub base_url: &'a str,
}

/// Opens an alert and confirms it by mail (with the unsubscribe link, so
/// an address entered by someone else can be taken off at once). An alert
/// already open for the same address and choice is left as it is.
pub async fn subscribe(
    db: &Db,
    clock: &Clock,
    catalog: &Catalog,
    sub: &Subscription<'_>,
) -> Result<(), AlertError> {
    let email =
        crate::accounts::normalize_email(sub.email).map_err(|_| AlertError::InvalidEmail)?;
    let (Some(plan), Some(site)) = (catalog.plan(sub.plan), catalog.site(sub.site)) else {
        return Err(AlertError::UnknownChoice);
    };
    let now = clock.now();
    let token = tokens::random_token()?;
    let mut tx = db.begin().await.context("starting a transaction")?;
    let inserted = sqlx::query(
        "insert into stock_alerts (id, email, lang, plan_id, site_code, token_hash, user_id, created_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8) \
         on conflict (email, plan_id, site_code) where closed_at is null do nothing",
    )
    .bind(new_id())
    .bind(&email)
    .bind(sub.lang.code())
    .bind(plan.id.as_str())
    .bind(site.code.as_str())
    .bind(tokens::hash(&token))
    .bind(sub.user_id)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("opening the alert")?;
    if inserted.rows_affected() == 1 {
        let link = unsubscribe_link(sub.base_url, sub.lang, &token);
        let what = format!("{} · {}", plan.name, site.city.get(sub.lang));
        mail::queue(&mut tx, &subscribed(sub.lang, &email, &what, &link), now).await?;
    }
    tx.commit().await.context("committing the alert")?;
    Ok(())
}

fn unsubscribe_link(base_url: &str, lang: Lang, token: &str) -> String {
    format!(
        "{}/{}/alerts/unsubscribe?token={token}",
        base_url.trim_end_matches('/'),
        lang.code()
    )
}

/// Closes the alert a link names; false if it was unknown or closed.
pub async fn unsubscribe(db: &Db, clock: &Clock, token: &str) -> anyhow::Result<bool> {
    let done = sqlx::query(
        "update stock_alerts set closed_at = $1, close_reason = 'unsubscribed' \
         where token_hash = $2 and closed_at is null",
    )
    .bind(clock.now())
    .bind(tokens::hash(token.trim()))
    .execute(&db.pool)
    .await
    .context("closing the alert")?;
    Ok(done.rows_affected() == 1)
}

/// An alert not yet sent nor unsubscribed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenAlert {
    pub id: String,
    pub email: String,
    pub lang: Lang,
    pub plan_id: String,
    pub site_code: String,
    pub created_at: i64,
}

/// The open alerts of an address, newest first (an API token lists its
/// creator's).
pub async fn list_for_email(db: &Db, email: &str) -> anyhow::Result<Vec<OpenAlert>> {
    let Ok(email) = crate::accounts::normalize_email(email) else {
        // No alert was ever opened for an address that isn't one.
        return Ok(Vec::new());
    };
    sqlx::query(
        "select id, email, lang, plan_id, site_code, created_at from stock_alerts \
         where email = $1 and closed_at is null order by created_at desc, id desc",
    )
    .bind(&email)
    .fetch_all(&db.pool)
    .await
    .context("listing the alerts of an address")?
    .iter()
    .map(|r| {
        Ok(OpenAlert {
            id: r.try_get("id")?,
            email: r.try_get("email")?,
            lang: Lang::from_code(&r.try_get::<String, _>("lang")?).unwrap_or_default(),
            plan_id: r.try_get("plan_id")?,
            site_code: r.try_get("site_code")?,
            created_at: r.try_get("created_at")?,
        })
    })
    .collect()
}

/// Closes an open alert of `email` by its id, as its unsubscribe link
/// would; false if it is unknown, closed, or another address's.
pub async fn close_by_id(db: &Db, clock: &Clock, email: &str, id: &str) -> anyhow::Result<bool> {
    let Ok(email) = crate::accounts::normalize_email(email) else {
        return Ok(false);
    };
    let done = sqlx::query(
        "update stock_alerts set closed_at = $1, close_reason = 'unsubscribed' \
         where id = $2 and email = $3 and closed_at is null",
    )
    .bind(clock.now())
    .bind(id)
    .bind(&email)
    .execute(&db.pool)
    .await
    .context("closing the alert")?;
    Ok(done.rows_affected() == 1)
}

/// Mails every open alert whose plan and site have a free host again, once.
/// Safe to run on every replica: an alert closes with a conditional update
/// in the transaction that queues its message.
pub async fn dispatch(
    db: &Db,
    clock: &Clock,
    catalog: &Catalog,
    base_url: &str,
) -> anyhow::Result<usize> {
    let now = clock.now();
    let due = sqlx::query(
        "select a.id, a.email, a.lang, a.plan_id, a.site_code from stock_alerts a \
         where a.closed_at is null and exists (select 1 from hosts h where h.plan_id = a.plan_id \
         and h.site_code = a.site_code and (h.state = 'free' or (h.state = 'held' and h.hold_expires_at <= $1))) \
         order by a.created_at limit 200",
    )
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .context("finding alerts to send")?;
    let mut sent = 0;
    for row in &due {
        let id: String = row.try_get("id")?;
        let email: String = row.try_get("email")?;
        let lang = Lang::from_code(&row.try_get::<String, _>("lang")?).unwrap_or_default();
        let plan_id: String = row.try_get("plan_id")?;
        let site_code: String = row.try_get("site_code")?;
        let (Some(plan), Some(site)) = (catalog.plan(&plan_id), catalog.site(&site_code)) else {
            continue;
        };
        // A fresh token: the stored one is a hash and cannot be mailed again.
        let token = tokens::random_token()?;
        let mut tx = db.begin().await.context("starting a transaction")?;
        let closed = sqlx::query(
            "update stock_alerts set closed_at = $1, close_reason = 'notified', token_hash = $2 \
             where id = $3 and closed_at is null",
        )
        .bind(now)
        .bind(tokens::hash(&token))
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("closing the alert")?;
        if closed.rows_affected() == 1 {
            let order = format!(
                "{}/{}/configure?plan={}&site={}",
                base_url.trim_end_matches('/'),
                lang.code(),
                plan.id,
                site.code
            );
            let what = format!("{} · {}", plan.name, site.city.get(lang));
            mail::queue(&mut tx, &back_in_stock(lang, &email, &what, &order), now).await?;
            sent += 1;
        }
        tx.commit().await.context("committing the alert")?;
    }
    Ok(sent)
}

fn subscribed(lang: Lang, to: &str, what: &str, unsubscribe: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            format!("到货提醒已设置：{what}"),
            format!("您好：\n\n{what} 一有空闲机器，我们就会给您发一封邮件，只发一次。\n\n如果这不是您设置的，或您不再需要，请打开此链接取消：\n{unsubscribe}"),
        ),
        Lang::En => (
            format!("Stock alert set: {what}"),
            format!("Hello,\n\nWe’ll email you once, as soon as a {what} server is free.\n\nIf you didn’t ask for this, or no longer need it, cancel it here:\n{unsubscribe}"),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}

fn back_in_stock(lang: Lang, to: &str, what: &str, order: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            format!("{what} 有货了"),
            format!("您好：\n\n{what} 现在有空闲机器。库存按先到先得分配，我们无法为您保留。\n\n下单：{order}\n\n这是该提醒的唯一一封邮件，提醒现已关闭。"),
        ),
        Lang::En => (
            format!("{what} is back in stock"),
            format!("Hello,\n\nA {what} server is free now. Stock goes first come, first served; we can’t hold it for you.\n\nOrder: {order}\n\nThis is the only message for this alert, which is now closed."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}
