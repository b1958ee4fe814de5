//! Members of the current organization (owners only): roles, removal,
//! invitations by email; and accepting an invitation.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, Field, FormErrorNotice, Notice};
use super::{from_parts, query, role_name, use_feedback, use_viewer};
use crate::i18n::portal;
use crate::shell::route_lang;
use crate::storefront::href;
use crate::storefront::layout::Page;
use crate::storefront::not_found::NotFound;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MembersView {
    pub two_factor_required: bool,
    pub members: Vec<MemberRow>,
    pub pending: Vec<(String, String)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemberRow {
    pub user_id: String,
    pub name: String,
    pub email: String,
    pub role: String,
}

const ROLES: [&str; 3] = ["owner", "technical", "billing"];

#[component]
pub fn MembersPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    if from_parts::<super::Denied>().is_some() {
        return view! { <super::forms::DeniedPage lang rest="/members" /> }.into_any();
    }
    let Some(view) = from_parts::<MembersView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let p = portal(lang);
    let me = use_viewer().user.map(|u| u.email).unwrap_or_default();
    let done = query("done").map(|_| p.members_saved);
    let rows = view
        .members
        .into_iter()
        .map(|m| {
            let options = ROLES
                .iter()
                .map(|r| view! { <option value=*r selected=*r == m.role>{role_name(lang, r)}</option> })
                .collect_view();
            let label = format!("{} {}", p.members_role_of, m.email);
            let is_me = m.email == me;
            view! {
                <tr data-member=m.email.clone()>
                    <th scope="row">{m.name.clone()}<span class="country">{m.email.clone()}</span></th>
                    <td>
                        <form method="post" action=href(lang, "/members/role") class="inline">
                            <CsrfField />
                            <input type="hidden" name="user_id" value=m.user_id.clone() />
                            <select name="role" aria-label=label>{options}</select>
                            <button type="submit">{p.members_change_role}</button>
                        </form>
                    </td>
                    <td>
                        <form method="post" action=href(lang, "/members/remove") class="inline">
                            <CsrfField />
                            <input type="hidden" name="user_id" value=m.user_id.clone() />
                            <button type="submit" class="button-secondary">
                                {if is_me { p.members_leave } else { p.members_remove }}
                            </button>
                        </form>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let pending = view
        .pending
        .into_iter()
        .map(|(email, role)| view! { <li>{email}" · "{role_name(lang, &role)}</li> })
        .collect_view();
    let feedback = use_feedback();
    view! {
        <Page lang title=p.members_title.to_owned() description=p.members_title.to_owned() rest="/members".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="members-title">
                <h1 id="members-title">{p.members_title}</h1>
                <Notice text=done />
                <FormErrorNotice lang />
                <div class="table-scroll" role="region" tabindex="0" aria-label=p.members_title>
                    <table class="members">
                        <thead>
                            <tr>
                                <th scope="col">{p.name}</th>
                                <th scope="col">{p.account_role}</th>
                                <th scope="col"><span class="sr-only">{p.members_remove}</span></th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                <h2>{p.members_tfa_title}</h2>
                <p data-testid="tfa-requirement">
                    {if view.two_factor_required { p.members_tfa_on } else { p.members_tfa_off }}
                </p>
                <form method="post" action=href(lang, "/members/two-factor")>
                    <CsrfField />
                    <input type="hidden" name="role" value=if view.two_factor_required { "optional" } else { "required" } />
                    <button type="submit" class="button-secondary">
                        {if view.two_factor_required { p.members_tfa_stop } else { p.members_tfa_require }}
                    </button>
                </form>
                <h2>{p.members_pending}</h2>
                <ul class="site-list">{pending}</ul>
                <h2>{p.members_invite}</h2>
                <form method="post" action=href(lang, "/members/invite")>
                    <CsrfField />
                    <Field label=p.email.to_owned() name="email" kind="email" value=feedback.value("email") autocomplete="off" />
                    <div class="field">
                        <label for="invite-role">{p.account_role}</label>
                        <select id="invite-role" name="role">
                            {ROLES.iter().map(|r| view! { <option value=*r selected=*r == "technical">{role_name(lang, r)}</option> }).collect_view()}
                        </select>
                    </div>
                    <button type="submit">{p.members_invite_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

#[component]
pub fn InvitePage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    let p = portal(lang);
    let token = query("token").unwrap_or_else(|| use_feedback().value("token"));
    let logged_in = use_viewer().user.is_some();
    view! {
        <Page lang title=p.invite_title.to_owned() description=p.invite_title.to_owned() rest="/invite".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="invite-title">
                <h1 id="invite-title">{p.invite_title}</h1>
                <FormErrorNotice lang />
                {if logged_in {
                    view! {
                        <p>{p.invite_body}</p>
                        <form method="post" action=href(lang, "/invite")>
                            <CsrfField />
                            <input type="hidden" name="token" value=token />
                            <button type="submit">{p.invite_accept}</button>
                        </form>
                    }
                        .into_any()
                } else {
                    view! {
                        <p>{p.invite_login_first}</p>
                        <p>
                            <a class="button" href=href(lang, "/login")>{p.login_title}</a>
                            " "
                            <a href=href(lang, "/signup")>{p.signup_title}</a>
                        </p>
                    }
                        .into_any()
                }}
            </section>
        </Page>
    }
    .into_any()
}
