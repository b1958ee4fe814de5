//! Members of the current organization (owners only): roles, removal,
//! invitations by email (sent, sent again, withdrawn). The invitee's page
//! is `invite.rs`.

use domain::{Lang, Role, UserId};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, Field, FormErrorNotice};
use super::notices::SavedNotice;
use super::{role_name, use_feedback, use_viewer};
use crate::i18n::portal;
use crate::storefront::href;
use crate::storefront::layout::Page;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MembersView {
    pub two_factor_required: bool,
    pub members: Vec<MemberRow>,
    pub pending: Vec<PendingRow>,
}

/// An invitation not answered yet.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PendingRow {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub expires_at: i64,
}

pub use super::invite::InvitePage;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemberRow {
    pub user_id: UserId,
    pub name: String,
    pub email: String,
    pub role: Role,
}

#[component]
pub fn MembersPage(lang: Lang, view: MembersView) -> impl IntoView {
    let p = portal(lang);
    let me = use_viewer().user.map(|u| u.email).unwrap_or_default();
    let rows = view
        .members
        .into_iter()
        .map(|m| {
            let options = Role::ALL
                .iter()
                .map(|r| view! { <option value=r.as_str() selected=*r == m.role>{role_name(lang, *r)}</option> })
                .collect_view();
            let label = format!("{} {}", p.members_role_of, m.email);
            let is_me = m.email == me;
            view! {
                <tr data-member=m.email.clone()>
                    <th scope="row">{m.name.clone()}<span class="country">{m.email.clone()}</span></th>
                    <td>
                        <form method="post" action=href(lang, "/members/role") class="inline">
                            <CsrfField />
                            <input type="hidden" name="user_id" value=m.user_id.to_string() />
                            <select name="role" aria-label=label>{options}</select>
                            <button type="submit">{p.members_change_role}</button>
                        </form>
                    </td>
                    <td>
                        <form method="post" action=href(lang, "/members/remove") class="inline">
                            <CsrfField />
                            <input type="hidden" name="user_id" value=m.user_id.to_string() />
                            <button type="submit" class="button-secondary">
                                {if is_me { p.members_leave } else { p.members_remove }}
                            </button>
                        </form>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let no_pending = view.pending.is_empty();
    let pending = view
        .pending
        .into_iter()
        .map(|i| {
            let resend_label = format!("{}: {}", p.members_resend, i.email);
            let revoke_label = format!("{}: {}", p.members_revoke, i.email);
            view! {
                <li data-invitation=i.email.clone()>
                    <span>{i.email.clone()}" · "{role_name(lang, i.role)}" · "{p.members_expires}" "{domain::time::format_date(i.expires_at)}</span>
                    <form method="post" action=href(lang, "/members/resend") class="inline">
                        <CsrfField />
                        <input type="hidden" name="invitation" value=i.id.clone() />
                        <button type="submit" class="button-secondary" aria-label=resend_label>{p.members_resend}</button>
                    </form>
                    <form method="post" action=href(lang, "/members/revoke") class="inline">
                        <CsrfField />
                        <input type="hidden" name="invitation" value=i.id.clone() />
                        <button type="submit" class="button-secondary" aria-label=revoke_label>{p.members_revoke}</button>
                    </form>
                </li>
            }
        })
        .collect_view();
    let feedback = use_feedback();
    view! {
        <Page lang title=p.members_title.to_owned() description=p.members_title.to_owned() rest="/members".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="members-title">
                <super::nav::PortalNav lang />
                <h1 id="members-title">{p.members_title}</h1>
                <SavedNotice lang />
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
                {if no_pending {
                    view! { <p>{p.members_pending_none}</p> }.into_any()
                } else {
                    view! { <ul class="site-list pending-invitations">{pending}</ul> }.into_any()
                }}
                <h2>{p.members_invite}</h2>
                <form method="post" action=href(lang, "/members/invite")>
                    <CsrfField />
                    <Field label=p.email.to_owned() name="email" kind="email" value=feedback.value("email") autocomplete="off" />
                    <div class="field">
                        <label for="invite-role">{p.account_role}</label>
                        <select id="invite-role" name="role">
                            {Role::ALL.iter().map(|r| view! { <option value=r.as_str() selected=*r == Role::Technical>{role_name(lang, *r)}</option> }).collect_view()}
                        </select>
                    </div>
                    <button type="submit">{p.members_invite_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(MembersView => MembersPage(view));
