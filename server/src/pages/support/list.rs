//! The organization's support requests the member may see, newest activity
//! first, with the way to open a new one.

use crate::pages::support::{category_name, when, RequestRow, StateBadge, SupportListView};
use app::i18n::support;
use app::portal::forms::FormErrorNotice;
use app::portal::nav::PortalNav;
use app::storefront::href;
use app::storefront::layout::Page;
use domain::support::State;
use domain::Lang;
use leptos::prelude::*;

const REST: &str = "/support/requests";

#[component]
pub fn SupportListPage(lang: Lang, view: SupportListView) -> impl IntoView {
    let s = support(lang);
    let body = if view.requests.is_empty() {
        view! {
            <div class="support-empty" data-testid="support-empty">
                <h2>{s.empty_title}</h2>
                <p>{s.empty_body}</p>
                <p><a class="button" href=href(lang, "/support/requests/new")>{s.new_button}</a></p>
            </div>
        }
        .into_any()
    } else {
        let rows = view
            .requests
            .into_iter()
            .map(|r| view! { <Row lang row=r /> })
            .collect_view();
        view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(s.list_title)>
                <table class="support-requests phone-cards">
                    <thead>
                        <tr>
                            <th scope="col">{s.col_reference}</th>
                            <th scope="col">{s.col_subject}</th>
                            <th scope="col">{s.col_category}</th>
                            <th scope="col">{s.col_state}</th>
                            <th scope="col">{s.col_server}</th>
                            <th scope="col">{s.col_activity}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
        .into_any()
    };
    view! {
        <Page lang title=s.list_title.to_owned() description=s.list_intro.to_owned() rest=REST.to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="support-title">
                <PortalNav lang />
                <div class="title-row">
                    <h1 id="support-title">{s.list_title}</h1>
                    <a class="button" href=href(lang, "/support/requests/new")>{s.new_button}</a>
                </div>
                <p class="lead">{s.list_intro}</p>
                <FormErrorNotice lang />
                {body}
            </section>
        </Page>
    }
    .into_any()
}

#[component]
fn Row(lang: Lang, row: RequestRow) -> impl IntoView {
    let s = support(lang);
    let link = href(lang, &format!("{REST}/{}", row.id));
    let waiting = row.state == State::Waiting;
    let server = match (row.server_id, row.server_name) {
        (Some(id), Some(name)) => {
            view! { <a href=href(lang, &format!("/servers/{id}"))>{name}</a> }.into_any()
        }
        (_, Some(name)) => view! { <span>{name}</span> }.into_any(),
        _ => view! { <span>{s.no_server}</span> }.into_any(),
    };
    let reference = row.reference.clone();
    view! {
        <tr data-request=reference class:support-waiting=waiting>
            <th scope="row" data-label=s.col_reference><a href=link.clone()><code>{row.reference}</code></a></th>
            <td data-label=s.col_subject class="support-subject"><a href=link>{row.subject}</a></td>
            <td data-label=s.col_category>{category_name(lang, row.category)}</td>
            <td data-label=s.col_state><StateBadge lang state=row.state /></td>
            <td data-label=s.col_server>{server}</td>
            <td data-label=s.col_activity>{when(row.updated_at)}</td>
        </tr>
    }
}

app::page_view!(SupportListView => SupportListPage(view));
