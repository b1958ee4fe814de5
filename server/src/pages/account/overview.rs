//! The account page: who you are, your organization and role, changing the
//! password and email, deleting the account. Logging out is in the header
//! of every portal page.

use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice};
use app::portal::notices::SavedNotice;
use app::portal::use_viewer;
use app::storefront::href;
use app::storefront::layout::Page;
use app::storefront::not_found::NotFound;
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn AccountPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    // The server redirects anonymous visitors before this renders.
    let Some(user) = use_viewer().user else {
        return view! { <NotFound /> }.into_any();
    };
    let role = user.role.map_or("", |r| app::portal::role_name(lang, r));
    let switch = (user.organizations.len() > 1).then(|| {
        let options = user
            .organizations
            .iter()
            .map(|(id, name, r)| {
                view! {
                    <option value=id.to_string() selected=*id == user.organization_id>
                        {format!("{name} · {}", app::portal::role_name(lang, *r))}
                    </option>
                }
            })
            .collect_view();
        view! {
            <form method="post" action=href(lang, "/account/organization") class="choice">
                <CsrfField />
                <div class="field">
                    <label for="organization">{p.account_switch_org}</label>
                    <select id="organization" name="organization">{options}</select>
                </div>
                <button type="submit">{p.account_switch_submit}</button>
            </form>
        }
    });
    view! {
        <Page lang title=p.account_title.to_owned() description=p.account_title.to_owned() rest="/account".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="account-title">
                <app::portal::nav::PortalNav lang />
                <h1 id="account-title">{p.account_title}</h1>
                <SavedNotice lang />
                <dl class="account-facts">
                    <dt>{p.name}</dt>
                    <dd data-testid="account-name">{user.name.clone()}</dd>
                    <dt>{p.email}</dt>
                    <dd data-testid="account-email">{user.email.clone()}</dd>
                    <dt>{p.account_organization}</dt>
                    <dd>{user.organization.clone()}</dd>
                    <dt>{p.account_role}</dt>
                    <dd data-testid="account-role">{role}</dd>
                </dl>
                {switch}
                <p><a href=href(lang, "/account/2fa")>{p.tfa_nav}</a></p>
                <h2>{p.account_change_password}</h2>
                <FormErrorNotice lang />
                <form method="post" action=href(lang, "/account/password")>
                    <CsrfField />
                    <Field lang label=p.account_current_password.to_owned() name="current" kind="password" autocomplete="current-password" />
                    <Field
                        lang
                        label=p.account_new_password.to_owned()
                        name="password"
                        kind="password"
                        autocomplete="new-password"
                        hint=p.password_hint
                    />
                    <Field lang label=p.account_repeat_password.to_owned() name="repeat" kind="password" autocomplete="new-password" />
                    <button type="submit">{p.account_change_submit}</button>
                </form>
                <h2>{p.email_change_title}</h2>
                <form method="post" action=href(lang, "/account/email")>
                    <CsrfField />
                    <Field lang label=p.email_new.to_owned() name="email" id="new-email" kind="email" autocomplete="email" />
                    <Field lang label=p.account_current_password.to_owned() name="current" id="email-current" kind="password" autocomplete="current-password" />
                    <button type="submit">{p.email_change_submit}</button>
                </form>
                <h2>{p.delete_title}</h2>
                <p>{p.delete_body}</p>
                <form method="post" action=href(lang, "/account/delete")>
                    <CsrfField />
                    <Field lang label=p.account_current_password.to_owned() name="current" id="delete-current" kind="password" autocomplete="current-password" />
                    <button type="submit" class="button-danger">{p.delete_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}
