//! The account mails, in the recipient's language.

use domain::Lang;

use crate::mail::Message;

pub fn verify(lang: Lang, to: &str, name: &str, link: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            "请确认您的邮箱地址".to_owned(),
            format!("{name}，您好：\n\n请打开以下链接确认您的邮箱地址（24 小时内有效）：\n{link}\n\n如果不是您本人注册，请忽略此邮件。"),
        ),
        Lang::En => (
            "Confirm your email address".to_owned(),
            format!("Hello {name},\n\nOpen this link to confirm your email address (it works for 24 hours):\n{link}\n\nIf you didn’t sign up, ignore this message."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}

/// Sent instead of a second account when someone signs up with a known email.
pub fn already_registered(lang: Lang, to: &str, login: &str, reset: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            "有人尝试用您的邮箱注册".to_owned(),
            format!("您好：\n\n有人刚刚尝试用此邮箱注册新账户，但该邮箱已有账户。\n登录：{login}\n忘记密码：{reset}\n\n如果不是您本人操作，请忽略此邮件；您的账户没有任何变化。"),
        ),
        Lang::En => (
            "Someone tried to sign up with your email".to_owned(),
            format!("Hello,\n\nSomeone just tried to create an account with this email, but it already has one.\nLog in: {login}\nForgot your password: {reset}\n\nIf it wasn’t you, ignore this message; nothing about your account has changed."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}

pub fn reset(lang: Lang, to: &str, name: &str, link: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            "重置您的密码".to_owned(),
            format!("{name}，您好：\n\n请打开以下链接设置新密码。链接 30 分钟内有效，且只能使用一次：\n{link}\n\n如果不是您本人申请，请忽略此邮件；您的密码不会改变。"),
        ),
        Lang::En => (
            "Reset your password".to_owned(),
            format!("Hello {name},\n\nOpen this link to choose a new password. It works once, for 30 minutes:\n{link}\n\nIf you didn’t ask for this, ignore this message; your password stays as it is."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}

pub fn password_changed(lang: Lang, to: &str, name: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            "您的密码已更改".to_owned(),
            format!("{name}，您好：\n\n您账户的密码刚刚被更改，其他设备上的登录已全部退出。\n如果不是您本人操作，请立即重置密码。"),
        ),
        Lang::En => (
            "Your password was changed".to_owned(),
            format!("Hello {name},\n\nThe password of your account was just changed and every other session was logged out.\nIf this wasn’t you, reset your password now."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}

pub fn confirm_new_email(lang: Lang, to: &str, name: &str, link: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            "确认您的新邮箱地址".to_owned(),
            format!("{name}，您好：\n\n请打开以下链接，把账户邮箱改为此地址（24 小时内有效）：\n{link}\n\n如果不是您本人申请，请忽略此邮件。"),
        ),
        Lang::En => (
            "Confirm your new email address".to_owned(),
            format!("Hello {name},\n\nOpen this link to make this the email address of your account (it works for 24 hours):\n{link}\n\nIf you didn’t ask for this, ignore this message."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}

pub fn email_changed(lang: Lang, to: &str, name: &str, new_email: &str) -> Message {
    let (subject, body) = match lang {
        Lang::Zh => (
            "您的账户邮箱已更改".to_owned(),
            format!("{name}，您好：\n\n您账户的邮箱已改为 {new_email}。如果不是您本人操作，请立即联系我们。"),
        ),
        Lang::En => (
            "Your account’s email address was changed".to_owned(),
            format!("Hello {name},\n\nThe email address of your account is now {new_email}. If this wasn’t you, contact us at once."),
        ),
    };
    Message {
        to: to.to_owned(),
        subject,
        body,
    }
}
