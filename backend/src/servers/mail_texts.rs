//! Mail about servers, in the recipient's language.

use domain::server::EventKind;
use domain::Lang;

use crate::mail::Message;

pub struct Ready<'a> {
    pub to: &'a str,
    pub name: &'a str,
    pub ipv4: &'a str,
    pub ipv6: &'a str,
    pub link: &'a str,
}

/// Sent to whoever ordered the server once it is running.
pub fn ready(lang: Lang, r: &Ready<'_>) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            format!("服务器 {} 已就绪", r.name),
            format!(
                "您好：\n\n您的服务器 {} 已安装完成并在运行。\n\nIPv4：{}\nIPv6：{}\n\n详情、root 登录信息和电源操作：\n{}\n\n第一个租期从现在开始，之后按月续期。",
                r.name, r.ipv4, r.ipv6, r.link
            ),
        ),
        Lang::En => (
            format!("Your server {} is ready", r.name),
            format!(
                "Hello,\n\nYour server {} is installed and running.\n\nIPv4: {}\nIPv6: {}\n\nDetails, root access and power actions:\n{}\n\nIts term starts now and renews monthly.",
                r.name, r.ipv4, r.ipv6, r.link
            ),
        ),
    };
    Message {
        to: r.to.to_owned(),
        subject,
        body,
    }
}

/// A change to when a server ends.
#[derive(Clone, Copy, Debug)]
pub enum Cancellation {
    Scheduled {
        ends_at: i64,
    },
    /// Taken back: the server renews as before (at `renews_at`).
    Revoked {
        renews_at: Option<i64>,
    },
}

/// A cancellation scheduled or taken back, told to the organization's
/// owners (it ends billing and wipes the server).
pub struct CancellationMail<'a> {
    pub to: &'a str,
    pub server: &'a str,
    /// Who did it (their email).
    pub by: &'a str,
    pub change: Cancellation,
    pub link: &'a str,
}

pub fn cancellation(lang: Lang, m: &CancellationMail<'_>) -> Message {
    let (server, by, link) = (m.server, m.by, m.link);
    let (subject, body) = match (lang, m.change) {
        (Lang::En, Cancellation::Scheduled { ends_at }) => {
            let date = domain::time::format_date(ends_at);
            (
                format!("{server}: cancellation scheduled for {date}"),
                format!(
                    "Hello,\n\n{by} scheduled the cancellation of server {server}. On {date} billing stops and the server is wiped: its volumes can't be recovered afterwards. Move your data off it before then.\n\nUntil that date the cancellation can be taken back on the server's page:\n{link}"
                ),
            )
        }
        (Lang::Zh, Cancellation::Scheduled { ends_at }) => {
            let date = domain::time::format_date(ends_at);
            (
                format!("{server}：已安排于 {date} 取消"),
                format!(
                    "您好：\n\n{by} 已安排取消服务器 {server}。{date} 计费停止，服务器将被擦除，之后数据卷无法恢复。请在此之前移走您的数据。\n\n在该日期之前，可以在服务器页面撤销取消：\n{link}"
                ),
            )
        }
        (Lang::En, Cancellation::Revoked { renews_at }) => {
            let renews = renews_at.map_or_else(
                || "It keeps running and renews monthly.".to_owned(),
                |at| {
                    format!(
                        "It keeps running and renews on {}.",
                        domain::time::format_date(at)
                    )
                },
            );
            (
                format!("{server}: cancellation revoked"),
                format!(
                    "Hello,\n\n{by} revoked the cancellation of server {server}. {renews}\n\nThe server's page:\n{link}"
                ),
            )
        }
        (Lang::Zh, Cancellation::Revoked { renews_at }) => {
            let renews = renews_at.map_or_else(
                || "服务器继续运行，按月续期。".to_owned(),
                |at| {
                    format!(
                        "服务器继续运行，将于 {} 续期。",
                        domain::time::format_date(at)
                    )
                },
            );
            (
                format!("{server}：已撤销取消"),
                format!(
                    "您好：\n\n{by} 已撤销服务器 {server} 的取消。{renews}\n\n服务器页面：\n{link}"
                ),
            )
        }
    };
    Message {
        to: m.to.to_owned(),
        subject,
        body,
    }
}

/// An event on a server that its team hears about (see `notices`).
pub struct Notice<'a> {
    pub to: &'a str,
    pub server: &'a str,
    pub kind: EventKind,
    pub detail: &'a str,
    pub at: i64,
    /// A maintenance window's start and end.
    pub window: Option<(i64, i64)>,
    pub link: &'a str,
}

/// The mail for a notice, or `None` for a kind that has none.
pub fn notice(lang: Lang, n: &Notice<'_>) -> Option<Message> {
    let at = domain::time::format_datetime(n.at);
    let window = n.window.map(|(from, to)| {
        format!(
            "{} – {}",
            domain::time::format_datetime(from),
            domain::time::format_datetime(to)
        )
    });
    let window = window.as_deref().unwrap_or(n.detail);
    let (subject, text) = match (lang, n.kind) {
        (Lang::En, EventKind::HostFailed) => (
            format!("{}: hardware failure, moving to another host", n.server),
            format!(
                "The host of your server {} failed at {at} ({}), so the server is down.\n\nWe are rebuilding it on another free host at the same site. Its volumes and IP addresses stay the same. If no host is free, we will write again.\n\nThe time it is down counts against the SLA. If the month's availability ends below 99.99%, a credit note is issued when the month closes, with no claim needed: it comes off your next invoice, or is paid back to you if no invoice follows.",
                n.server, n.detail
            ),
        ),
        (Lang::Zh, EventKind::HostFailed) => (
            format!("{}：硬件故障，正在迁移到另一台主机", n.server),
            format!(
                "您的服务器 {} 所在主机于 {at} 发生故障（{}），服务器已停机。\n\n我们正在同一站点的另一台空闲主机上重建它，数据卷和 IP 地址保持不变。如果没有空闲主机，我们会再通知您。\n\n停机时间计入 SLA。当月可用性低于 99.99% 时，月末会自动开具贷项通知单，无需申请：金额从您的下一张发票中扣除；如果之后不再有发票，则把金额退还给您。",
                n.server, n.detail
            ),
        ),
        (Lang::En, EventKind::RebuildWaiting) => (
            format!("{}: waiting for a free host", n.server),
            format!(
                "No host is free at your server {}'s site right now. It will be rebuilt as soon as one is, and we will write when it runs again.\n\nThe wait counts as downtime.",
                n.server
            ),
        ),
        (Lang::Zh, EventKind::RebuildWaiting) => (
            format!("{}：正在等待空闲主机", n.server),
            format!(
                "您的服务器 {} 所在站点目前没有空闲主机。一旦有主机空出，我们会立即重建，恢复运行时会再通知您。\n\n等待时间计为停机时间。",
                n.server
            ),
        ),
        (Lang::En, EventKind::Rebuilt) => (
            format!("{} is running again", n.server),
            format!(
                "Your server {} was rebuilt on another host and has been running again since {at}, with the same volumes and IP addresses.",
                n.server
            ),
        ),
        (Lang::Zh, EventKind::Rebuilt) => (
            format!("{} 已恢复运行", n.server),
            format!(
                "您的服务器 {} 已在另一台主机上重建，自 {at} 起恢复运行，数据卷和 IP 地址不变。",
                n.server
            ),
        ),
        (Lang::En, EventKind::HostDegraded) => (
            format!("{}: its host reports a fault", n.server),
            format!(
                "The host of your server {} reports a fault ({}). The server still runs.\n\nWe will propose a maintenance window to replace the part. You can accept it or propose another time on the server's page. An accepted window does not count against the SLA.",
                n.server, n.detail
            ),
        ),
        (Lang::Zh, EventKind::HostDegraded) => (
            format!("{}：所在主机报告故障", n.server),
            format!(
                "您的服务器 {} 所在主机报告了故障（{}），服务器仍在运行。\n\n我们会提议一个维护窗口来更换部件，您可以在服务器页面接受或提议其他时间。已接受的维护窗口不计入 SLA。",
                n.server, n.detail
            ),
        ),
        (Lang::En, EventKind::MaintenanceProposed) => (
            format!("{}: maintenance window proposed", n.server),
            format!(
                "We propose to replace the faulty part of your server {}'s host in this window:\n\n{window}\n\nThe server is off during the window. Please accept it or propose another time on the server's page. An accepted window does not count against the SLA.",
                n.server
            ),
        ),
        (Lang::Zh, EventKind::MaintenanceProposed) => (
            format!("{}：提议的维护窗口", n.server),
            format!(
                "我们提议在以下维护窗口内更换您的服务器 {} 所在主机的故障部件：\n\n{window}\n\n维护期间服务器关机。请在服务器页面接受或提议其他时间。已接受的维护窗口不计入 SLA。",
                n.server
            ),
        ),
        (Lang::En, EventKind::MaintenanceAccepted) => (
            format!("{}: maintenance window agreed", n.server),
            format!(
                "The maintenance window for your server {} is agreed:\n\n{window}\n\nThe server is off during the window and starts again when the part is replaced. The window does not count against the SLA.",
                n.server
            ),
        ),
        (Lang::Zh, EventKind::MaintenanceAccepted) => (
            format!("{}：维护窗口已确定", n.server),
            format!(
                "您的服务器 {} 的维护窗口已确定：\n\n{window}\n\n维护期间服务器关机，部件更换后重新启动。该窗口不计入 SLA。",
                n.server
            ),
        ),
        _ => return None,
    };
    let body = match lang {
        Lang::Zh => format!("您好：\n\n{text}\n\n服务器页面：\n{}", n.link),
        Lang::En => format!("Hello,\n\n{text}\n\nThe server's page:\n{}", n.link),
    };
    Some(Message {
        to: n.to.to_owned(),
        subject,
        body,
    })
}

/// A server's root password was reset through the portal: told to the
/// organization's owners, so a reset nobody expected is noticed. Never
/// carries the password.
pub struct RootPasswordReset<'a> {
    pub to: &'a str,
    pub server: &'a str,
    /// Who asked for it (their email).
    pub by: &'a str,
    pub at: i64,
    pub link: &'a str,
}

pub fn root_password_reset(lang: Lang, r: &RootPasswordReset<'_>) -> Message {
    let at = domain::time::format_datetime(r.at);
    let (subject, body) = match lang {
        Lang::Zh => (
            format!("服务器 {} 的 root 密码已重置", r.server),
            format!(
                "您好：\n\n{} 于 {at} 重置了服务器 {} 的 root 密码。旧密码已失效；新密码只在服务器页面显示一次。\n\n如果这不是您团队的操作，请立即检查成员和审计日志：\n{}",
                r.by, r.server, r.link
            ),
        ),
        Lang::En => (
            format!("The root password of {} was reset", r.server),
            format!(
                "Hello,\n\n{} reset the root password of your server {} at {at}. The old password no longer works; the new one is shown once on the server's page.\n\nIf nobody on your team did this, check your members and the audit log now:\n{}",
                r.by, r.server, r.link
            ),
        ),
    };
    Message {
        to: r.to.to_owned(),
        subject,
        body,
    }
}
