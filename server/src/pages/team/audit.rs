//! The organization's audit log (owners only): each action in words, in
//! the reader's language; a code without words shows as the code.

use app::i18n::portal;
use app::storefront::layout::Page;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditView {
    /// (time, actor, action, detail, address)
    pub entries: Vec<(i64, String, String, String, String)>,
}

/// The words for an audit action code, if it has any.
pub fn action_words(lang: Lang, code: &str) -> Option<&'static str> {
    portal(lang)
        .audit_actions
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, words)| *words)
}

#[component]
pub fn AuditPage(lang: Lang, view: AuditView) -> impl IntoView {
    let p = portal(lang);
    let rows = view
        .entries
        .into_iter()
        .map(|(at, actor, action, detail, ip)| {
            let words = action_words(lang, &action).map_or_else(|| action.clone(), str::to_owned);
            view! {
                <tr data-action=action>
                    <td><time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time></td>
                    <td>{actor}</td>
                    <td>{words}</td>
                    <td>{detail}</td>
                    <td>{ip}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=p.audit_title.to_owned() description=p.audit_title.to_owned() rest=crate::pages::staff::switch_rest("/audit") noindex=true>
            <section class="section portal-form wide" aria-labelledby="audit-title">
                // One menu: the staff area's there, the portal's here.
                <crate::pages::staff::StaffNav lang />
                {(!crate::pages::staff::in_staff_area()).then(|| view! { <app::portal::nav::PortalNav lang /> })}
                <h1 id="audit-title">{p.audit_title}</h1>
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(p.audit_title)>
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

app::page_view!(AuditView => AuditPage(view));
