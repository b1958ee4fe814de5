//! The organization's audit log (owners only).

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::from_parts;
use crate::i18n::portal;
use crate::shell::route_lang;
use crate::storefront::layout::Page;
use crate::storefront::not_found::NotFound;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditView {
    /// (time, actor, action, detail, address)
    pub entries: Vec<(i64, String, String, String, String)>,
}

#[component]
pub fn AuditPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    if from_parts::<super::Denied>().is_some() {
        return view! { <super::forms::DeniedPage lang rest="/audit" /> }.into_any();
    }
    let Some(view) = from_parts::<AuditView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let p = portal(lang);
    let rows = view
        .entries
        .into_iter()
        .map(|(at, actor, action, detail, ip)| {
            let token = action.clone();
            view! {
                <tr data-action=token>
                    <td><time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time></td>
                    <td>{actor}</td>
                    <td>{action}</td>
                    <td>{detail}</td>
                    <td>{ip}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=p.audit_title.to_owned() description=p.audit_title.to_owned() rest="/audit".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="audit-title">
                <h1 id="audit-title">{p.audit_title}</h1>
                <div class="table-scroll" role="region" tabindex="0" aria-label=p.audit_title>
                    <table class="audit">
                        <thead>
                            <tr>
                                <th scope="col">{p.audit_when}</th>
                                <th scope="col">{p.audit_who}</th>
                                <th scope="col">{p.audit_what}</th>
                                <th scope="col">{p.audit_detail}</th>
                                <th scope="col">{p.audit_address}</th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        </Page>
    }
    .into_any()
}
