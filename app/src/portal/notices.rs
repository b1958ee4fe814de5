//! What a save did, said at the top of the page it returns to. A form's
//! handler redirects to its page with `?done=<code>` (and `&to=<address>`
//! when the message names one); `SavedNotice` turns the code into the
//! translated sentence in a `role="status"` element. A query flag rather
//! than a session flash, so the storefront's cached pages (which have no
//! session) and the portal say "done" the same way.

use domain::Lang;
use leptos::prelude::*;

use super::{query, role_name, use_viewer};
use crate::i18n::portal;

/// The codes a redirect may carry, one per kind of save.
pub mod code {
    pub const KEY_ADDED: &str = "key-added";
    pub const KEY_DELETED: &str = "key-deleted";
    pub const INVITED: &str = "invited";
    pub const INVITE_RESENT: &str = "invite-resent";
    pub const INVITE_REVOKED: &str = "invite-revoked";
    pub const ROLE_CHANGED: &str = "role";
    pub const MEMBER_REMOVED: &str = "removed";
    pub const TFA_REQUIRED: &str = "tfa-required";
    pub const TFA_OPTIONAL: &str = "tfa-optional";
    pub const PASSWORD: &str = "password";
    pub const EMAIL_SENT: &str = "email-sent";
    pub const ORGANIZATION: &str = "organization";
    pub const JOINED: &str = "joined";
    pub const TFA_OFF: &str = "off";
}

/// `/{lang}{rest}?done={code}`, with the address a message names.
pub fn done_path(rest: &str, code: &str, to: Option<&str>) -> String {
    let mut path = format!("{rest}?done={code}");
    if let Some(to) = to {
        path.push_str("&to=");
        for byte in to.bytes() {
            if byte.is_ascii_alphanumeric() || b"@._-".contains(&byte) {
                path.push(char::from(byte));
            } else {
                path.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    path
}

/// An address from the query, only if it looks like one: the notice never
/// repeats arbitrary text from a link.
fn address() -> Option<String> {
    query("to").filter(|to| {
        to.len() <= 254
            && to.contains('@')
            && !to.chars().any(|c| c.is_whitespace() || c.is_control())
    })
}

/// The sentence for a save code on the signed-in viewer's pages.
pub fn message(lang: Lang, code: &str) -> Option<String> {
    let p = portal(lang);
    let user = use_viewer().user;
    let org = user
        .as_ref()
        .map(|u| u.organization.clone())
        .unwrap_or_default();
    let text = match code {
        code::KEY_ADDED => p.saved_key_added.to_owned(),
        code::KEY_DELETED => p.saved_key_deleted.to_owned(),
        code::INVITED => (p.saved_invited)(&address()?),
        code::INVITE_RESENT => (p.saved_invite_resent)(&address()?),
        code::INVITE_REVOKED => (p.saved_invite_revoked)(&address()?),
        code::ROLE_CHANGED => p.saved_role_changed.to_owned(),
        code::MEMBER_REMOVED => p.saved_member_removed.to_owned(),
        code::TFA_REQUIRED => p.saved_tfa_required.to_owned(),
        code::TFA_OPTIONAL => p.saved_tfa_optional.to_owned(),
        code::PASSWORD => p.account_password_changed.to_owned(),
        code::EMAIL_SENT => p.email_sent.to_owned(),
        code::ORGANIZATION => (p.saved_organization)(&org),
        code::JOINED => {
            let role = user
                .as_ref()
                .and_then(|u| u.role)
                .map_or("", |r| role_name(lang, r));
            (p.saved_joined)(&org, role)
        }
        code::TFA_OFF => p.tfa_disabled.to_owned(),
        _ => return None,
    };
    Some(text)
}

/// The outcome of the save that led here, if any.
#[component]
pub fn SavedNotice(lang: Lang) -> impl IntoView {
    query("done").and_then(|code| message(lang, &code)).map(
        |text| view! { <p class="notice notice-ok" role="status" data-testid="notice">{text}</p> },
    )
}
