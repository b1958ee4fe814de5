//! The staff area: organizations, users, and the development outbox.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::from_parts;
use crate::i18n::portal;
use crate::shell::route_lang;
use crate::storefront::href;
use crate::storefront::layout::Page;
use crate::storefront::not_found::NotFound;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StaffView {
    pub organizations: Vec<(String, i64, i64)>,
    pub users: Vec<(String, String, bool, bool)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OutboxView {
    /// (at, to, subject, body)
    pub mails: Vec<(i64, String, String, String)>,
}

#[component]
pub fn StaffPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    if from_parts::<super::Denied>().is_some() {
        return view! { <super::forms::DeniedPage lang rest="/staff" /> }.into_any();
    }
    let Some(view) = from_parts::<StaffView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let p = portal(lang);
    let yes_no = move |b: bool| if b { p.yes } else { p.no };
    let orgs = view
        .organizations
        .into_iter()
        .map(|(name, members, at)| {
            view! {
                <tr>
                    <th scope="row">{name}</th>
                    <td>{members}</td>
                    <td>{domain::time::format_date(at)}</td>
                </tr>
            }
        })
        .collect_view();
    let users = view
        .users
        .into_iter()
        .map(|(email, name, verified, staff)| {
            let key = email.clone();
            view! {
                <tr data-user=key>
                    <th scope="row">{email}</th>
                    <td>{name}</td>
                    <td>{yes_no(verified)}</td>
                    <td>{yes_no(staff)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=p.staff_title.to_owned() description=p.staff_title.to_owned() rest="/staff".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="staff-title">
                <h1 id="staff-title">{p.staff_title}</h1>
                <ul class="site-list">
                    {crate::context::use_site_info()
                        .development
                        .then(|| view! { <li><a href=href(lang, "/staff/outbox")>{p.staff_outbox}</a></li> })}
                    <li><a href=href(lang, "/staff/audit")>{p.audit_title}</a></li>
                </ul>
                <h2>{p.staff_organizations}</h2>
                <div class="table-scroll" role="region" tabindex="0" aria-label=p.staff_organizations>
                    <table>
                        <thead>
                            <tr>
                                <th scope="col">{p.account_organization}</th>
                                <th scope="col">{p.staff_members}</th>
                                <th scope="col">{p.staff_created}</th>
                            </tr>
                        </thead>
                        <tbody>{orgs}</tbody>
                    </table>
                </div>
                <h2>{p.staff_users}</h2>
                <div class="table-scroll" role="region" tabindex="0" aria-label=p.staff_users>
                    <table>
                        <thead>
                            <tr>
                                <th scope="col">{p.email}</th>
                                <th scope="col">{p.name}</th>
                                <th scope="col">{p.staff_verified}</th>
                                <th scope="col">{p.staff_is_staff}</th>
                            </tr>
                        </thead>
                        <tbody>{users}</tbody>
                    </table>
                </div>
            </section>
        </Page>
    }
    .into_any()
}

#[component]
pub fn OutboxPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    if from_parts::<super::Denied>().is_some() {
        return view! { <super::forms::DeniedPage lang rest="/staff/outbox" /> }.into_any();
    }
    let Some(view) = from_parts::<OutboxView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let p = portal(lang);
    let mails = view
        .mails
        .into_iter()
        .map(|(at, to, subject, body)| {
            let key = to.clone();
            view! {
                <article class="card mail" data-to=key>
                    <h2>{subject}</h2>
                    <p class="read-at">
                        <time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time>
                        " · "
                        {to}
                    </p>
                    <pre>{body}</pre>
                </article>
            }
        })
        .collect_view();
    view! {
        <Page lang title=p.staff_outbox.to_owned() description=p.staff_outbox.to_owned() rest="/staff/outbox".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="outbox-title">
                <h1 id="outbox-title">{p.staff_outbox}</h1>
                <p>{p.staff_outbox_note}</p>
                {mails}
            </section>
        </Page>
    }
    .into_any()
}
