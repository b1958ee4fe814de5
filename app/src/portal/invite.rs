//! Where an invitation link lands: who invites, to which organization, as
//! what. A signed-in user accepts; a new user signs up right here with the
//! invited address and joins; a withdrawn or replaced link says so.

use domain::{Lang, Role};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, Field, FormErrorNotice};
use super::{role_name, use_feedback, use_viewer};
use crate::i18n::portal;
use crate::storefront::href;
use crate::storefront::layout::Page;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum InviteState {
    Open,
    Withdrawn,
    Replaced,
    /// Used, expired, or never issued.
    Invalid,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InviteView {
    pub token: String,
    pub state: InviteState,
    pub organization: String,
    pub inviter: String,
    pub email: String,
    pub role: Option<Role>,
}

#[component]
pub fn InvitePage(lang: Lang, invite: InviteView) -> impl IntoView {
    let p = portal(lang);
    let logged_in = use_viewer().user.is_some();
    let title = match invite.state {
        InviteState::Open | InviteState::Withdrawn | InviteState::Replaced => {
            (p.invite_heading)(&invite.organization)
        }
        InviteState::Invalid => p.invite_title.to_owned(),
    };
    let body = match invite.state {
        InviteState::Withdrawn => {
            view! { <p class="notice notice-error" role="alert" data-testid="invite-state">{(p.invite_withdrawn)(&invite.organization)}</p> }.into_any()
        }
        InviteState::Replaced => {
            view! { <p class="notice notice-error" role="alert" data-testid="invite-state">{p.invite_replaced}</p> }.into_any()
        }
        InviteState::Invalid => {
            view! { <p class="notice notice-error" role="alert" data-testid="invite-state">{p.err_link}</p> }.into_any()
        }
        InviteState::Open if logged_in => view! {
            <form method="post" action=href(lang, "/invite")>
                <CsrfField />
                <input type="hidden" name="token" value=invite.token.clone() />
                <button type="submit">{p.invite_accept}</button>
            </form>
        }
        .into_any(),
        InviteState::Open => {
            let feedback = use_feedback();
            view! {
                <h2>{p.invite_new}</h2>
                <form method="post" action=href(lang, "/invite/signup")>
                    <CsrfField />
                    <input type="hidden" name="token" value=invite.token.clone() />
                    <div class="field">
                        <label for="invite-email">{p.email}</label>
                        <input id="invite-email" type="email" value=invite.email.clone() readonly aria-readonly="true" autocomplete="username" />
                    </div>
                    <Field label=p.name.to_owned() name="name" value=feedback.value("name") autocomplete="name" />
                    <Field label=p.password.to_owned() name="password" kind="password" autocomplete="new-password" hint=p.password_hint />
                    <button type="submit">{p.invite_signup_submit}</button>
                </form>
                <p>
                    {p.invite_existing}" "
                    <a href=href(lang, "/login") data-testid="invite-login">{p.login_title}</a>
                </p>
            }
            .into_any()
        }
    };
    let facts = (invite.state == InviteState::Open).then(|| {
        let role = invite.role.map_or("", |r| role_name(lang, r));
        view! {
            <p class="lead" data-testid="invite-facts">{(p.invite_facts)(&invite.inviter, &invite.organization, role)}</p>
            <p data-testid="invite-for">{(p.invite_for)(&invite.email)}</p>
        }
    });
    view! {
        <Page lang title=title.clone() description=p.invite_title.to_owned() rest="/invite".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="invite-title">
                <h1 id="invite-title">{title}</h1>
                {facts}
                <FormErrorNotice lang />
                {body}
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(InviteView => InvitePage(invite));
