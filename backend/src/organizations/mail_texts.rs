//! The invitation mail, in the invitee's language (the inviter's, since we
//! may not know theirs yet).

use domain::Lang;

use crate::mail::Message;

pub fn invitation(
    lang: Lang,
    to: &str,
    inviter: &str,
    organization: &str,
    role: &str,
    link: &str,
) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            format!("{inviter} 邀请您加入 {organization}"),
            format!("您好：\n\n{inviter} 邀请您以「{role}」角色加入 {organization}。\n接受邀请（7 天内有效）：\n{link}\n\n如果您还没有账户，请先用此邮箱注册，然后再打开链接。"),
        ),
        Lang::En => (
            format!("{inviter} invited you to {organization}"),
            format!("Hello,\n\n{inviter} invited you to join {organization} as {role}.\nAccept the invitation (valid for 7 days):\n{link}\n\nIf you don’t have an account yet, sign up with this email first, then open the link."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}
