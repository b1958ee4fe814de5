//! Mail about support requests, in the request's language. A mail says
//! that something happened and links to the thread; the portal is where
//! the conversation is (no internal note ever goes out).

use anyhow::Context;
use domain::{Lang, Role};
use sqlx::{Any, Row, Transaction};

use super::Category;
use crate::mail::Message;

/// Who hears about a request: the member who opened it while they still
/// belong to the organization and may see its category; otherwise (they
/// left, their role changed, or the system opened it) the owners.
pub(super) async fn recipients(
    tx: &mut Transaction<'_, Any>,
    request_id: &str,
) -> anyhow::Result<Vec<String>> {
    let opener = sqlx::query(
        "select u.email, m.role, r.category from support_requests r \
         join users u on u.id = r.opened_by \
         join memberships m on m.user_id = r.opened_by and m.organization_id = r.organization_id \
         where r.id = $1 and u.email_verified_at is not null",
    )
    .bind(request_id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading who opened the request")?;
    if let Some(row) = opener {
        let role = Role::parse(&row.try_get::<String, _>("role")?);
        let category = Category::parse(&row.try_get::<String, _>("category")?);
        if let (Some(role), Some(category)) = (role, category) {
            if category.visible_to(role) {
                return Ok(vec![row.try_get("email")?]);
            }
        }
    }
    sqlx::query(
        "select u.email from support_requests r \
         join memberships m on m.organization_id = r.organization_id and m.role = 'owner' \
         join users u on u.id = m.user_id \
         where r.id = $1 and u.email_verified_at is not null order by u.email",
    )
    .bind(request_id)
    .fetch_all(&mut **tx)
    .await
    .context("reading the organization's owners")?
    .iter()
    .map(|r| Ok(r.try_get("email")?))
    .collect()
}

/// What the mails name: the reference, the subject and the link.
pub(super) struct About<'a> {
    pub reference: &'a str,
    pub subject: &'a str,
    pub link: &'a str,
}

/// The confirmation of a new request (its `link` is not used: the portal's
/// Support section is named in words).
pub(super) fn opened(lang: Lang, to: &str, a: &About<'_>) -> Message {
    let (reference, subject) = (a.reference, a.subject);
    let (title, body) = match lang {
        Lang::Zh => (
            format!("[{reference}] 我们已收到您的请求：{subject}"),
            format!(
                "您好：\n\n我们已收到您的工单 {reference}（{subject}），会尽快答复，答复时会发邮件通知您。\n\n您可以在门户的“工单”页面查看和补充。"
            ),
        ),
        Lang::En => (
            format!("[{reference}] We received your request: {subject}"),
            format!(
                "Hello,\n\nWe received your support request {reference} ({subject}) and will answer soon; we will mail you when we do.\n\nYou can see it and add to it in the Support section of the portal."
            ),
        ),
    };
    message(to, title, body)
}

/// A staff reply: who answered and its first lines.
/// A reply's mail, signed as the thread shows staff replies: the support
/// team, not the name of whoever wrote it.
pub(super) fn answered(lang: Lang, to: &str, a: &About<'_>, excerpt: &str) -> Message {
    let (reference, subject, link) = (a.reference, a.subject, a.link);
    let (title, body) = match lang {
        Lang::Zh => (
            format!("[{reference}] {subject}：有新答复"),
            format!(
                "您好：\n\n支持团队答复了您的工单 {reference}：\n\n{excerpt}\n\n阅读完整答复并回复：\n{link}"
            ),
        ),
        Lang::En => (
            format!("[{reference}] {subject}: new answer"),
            format!(
                "Hello,\n\nThe support team answered your support request {reference}:\n\n{excerpt}\n\nRead the whole answer and reply:\n{link}"
            ),
        ),
    };
    message(to, title, body)
}

pub(super) fn reminder(lang: Lang, to: &str, a: &About<'_>) -> Message {
    let (reference, subject, link) = (a.reference, a.subject, a.link);
    let (title, body) = match lang {
        Lang::Zh => (
            format!("[{reference}] {subject}：24 小时后关闭"),
            format!(
                "您好：\n\n工单 {reference} 正在等待您的答复。如果 24 小时内没有答复，它将自动关闭（关闭后 30 天内可以重新打开）。\n\n答复：\n{link}"
            ),
        ),
        Lang::En => (
            format!("[{reference}] {subject}: closes in 24 hours"),
            format!(
                "Hello,\n\nSupport request {reference} is waiting for your answer. It closes in 24 hours unless you reply (you can reopen it for 30 days after).\n\nReply:\n{link}"
            ),
        ),
    };
    message(to, title, body)
}

pub(super) fn auto_closed(lang: Lang, to: &str, a: &About<'_>) -> Message {
    let (reference, subject, link) = (a.reference, a.subject, a.link);
    let (title, body) = match lang {
        Lang::Zh => (
            format!("[{reference}] {subject}：已关闭"),
            format!(
                "您好：\n\n工单 {reference} 一周没有答复，已自动关闭。30 天内可以在此重新打开：\n{link}"
            ),
        ),
        Lang::En => (
            format!("[{reference}] {subject}: closed"),
            format!(
                "Hello,\n\nSupport request {reference} had no answer for a week and was closed. You can reopen it within 30 days:\n{link}"
            ),
        ),
    };
    message(to, title, body)
}

/// The thread's first message when Fleet health finds a failing card.
pub(super) fn degraded_host(lang: Lang, server: &str, reason: &str) -> (String, String) {
    match lang {
        Lang::Zh => (
            format!("服务器 {server} 的主机出现故障迹象"),
            format!(
                "我们的监控发现服务器 {server} 的主机出现早期故障迹象（{reason}）。服务器仍在运行。我们将提议一个维护窗口来更换部件，您可以在服务器页面接受或另选时间。有问题请在此答复。"
            ),
        ),
        Lang::En => (
            format!("The host of server {server} shows signs of failure"),
            format!(
                "Our monitoring found early signs of failure on the host of server {server} ({reason}). The server still runs. We will propose a maintenance window to replace the part; you can accept it or choose another time on the server's page. Reply here with any question."
            ),
        ),
    }
}

/// The system's note in the thread when a request closes by itself.
pub(super) fn auto_closed_note(lang: Lang) -> &'static str {
    match lang {
        Lang::Zh => "一周没有答复，已自动关闭。",
        Lang::En => "Closed automatically after a week without an answer.",
    }
}

fn message(to: &str, subject: String, body: String) -> Message {
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}
