//! The invitation mail, in the invitee's language (the inviter's, since we
//! may not know theirs yet).

use domain::Lang;

use super::Role;
use crate::mail::Message;

fn role_words(lang: Lang, role: Role) -> &'static str {
    match (lang, role) {
        (Lang::Zh, Role::Owner) => "所有者",
        (Lang::Zh, Role::Technical) => "技术成员",
        (Lang::Zh, Role::Billing) => "账务成员",
        (Lang::En, Role::Owner) => "owner",
        (Lang::En, Role::Technical) => "technical member",
        (Lang::En, Role::Billing) => "billing member",
    }
}

pub fn invitation(
    lang: Lang,
    to: &str,
    inviter: &str,
    organization: &str,
    role: Role,
    link: &str,
) -> Message {
    let role = role_words(lang, role);
    let (subject, body) = match lang {
        Lang::Zh => (
            format!("{inviter} 邀请您加入 {organization}"),
            format!("您好：\n\n{inviter} 邀请您以“{role}”身份加入 {organization}。\n接受邀请（7 天内有效）：\n{link}\n\n还没有账户？打开链接即可用此邮箱注册，注册后直接加入 {organization}。"),
        ),
        Lang::En => (
            format!("{inviter} invited you to {organization}"),
            format!("Hello,\n\n{inviter} invited you to join {organization} as {role}.\nAccept the invitation (valid for 7 days):\n{link}\n\nNo account yet? Open the link to sign up with this email; you join {organization} straight away."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}
