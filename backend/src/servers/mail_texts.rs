//! Mail about servers, in the recipient's language.

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
                "您好：\n\n您的服务器 {} 已安装完成并在运行。\n\nIPv4：{}\nIPv6：{}\n\n详情、root 登录信息和电源操作：\n{}\n\n计费期限从现在开始，按月续期。",
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
