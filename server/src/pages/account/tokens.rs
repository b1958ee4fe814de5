//! The API tokens page (every member; staff act for no organization): the
//! organization's tokens (owners see everyone's, other members their own),
//! each with its scopes, expiry, last use and a confirmed revoke; creating a
//! token, whose secret is shown once, on the page the form redirects to
//! (`http::once`: sealed in the session for that one page; never in an
//! address), so a reload neither shows it again nor creates a second one;
//! revoking one.

use crate::http::once;
use crate::http::page::{
    client_ip, lang_of, page, redirect, refused, Member, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Route, MEMBERS};
use crate::pages::servers::server_action::confirmed;
use crate::startup::AppState;
use app::i18n::tokens;
use app::portal::forms::{CsrfField, FieldState, FormErrorNotice};
use app::portal::nav::PortalNav;
use app::portal::refusals::TokenRefusal;
use app::portal::FormError;
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use backend::api_tokens::{self, NewToken, TokenError};
use backend::organizations::{Membership, Role};
use backend::servers::Actor;
use domain::role::Scope;
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

/// The redirect code after a revocation (`?done=token-revoked`).
pub const REVOKED: &str = "token-revoked";

/// The expiries offered, in days (the backend refuses others).
const EXPIRY_DAYS: [i64; 3] = [30, 90, 365];

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TokensView {
    pub tokens: Vec<TokenRow>,
    /// The scopes the viewer's role may give.
    pub offered: Vec<Scope>,
    /// Owners see every member's tokens with their creator.
    pub owner: bool,
    pub now: i64,
    /// The token just created, (name, secret): only on the first page
    /// after the create form, never in an address.
    pub created: Option<(String, String)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TokenRow {
    pub id: String,
    pub name: String,
    pub prefix: String,
    pub scopes: Vec<Scope>,
    pub creator_email: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    /// (when, from which address)
    pub last_used: Option<(i64, Option<String>)>,
    /// Whether the viewer may revoke it (their own, or an owner).
    pub revocable: bool,
}

impl TokenRow {
    /// A token as `m` sees it: revocable by owners and by its creator.
    pub fn new(
        t: backend::api_tokens::ApiToken,
        m: &backend::organizations::Membership,
    ) -> TokenRow {
        TokenRow {
            revocable: m.role == domain::Role::Owner || t.user_id == m.user_id,
            id: t.id,
            name: t.name,
            prefix: t.prefix,
            scopes: t.scopes.clone(),
            creator_email: t.creator_email,
            created_at: t.created_at,
            expires_at: t.expires_at,
            revoked_at: t.revoked_at,
            last_used: t.last_used_at.map(|at| (at, t.last_used_ip)),
        }
    }
}

fn scope_words(lang: Lang, scope: Scope) -> &'static str {
    let t = tokens(lang);
    match scope {
        Scope::Read => t.scope_read,
        Scope::ServersWrite => t.scope_servers_write,
        Scope::BillingRead => t.scope_billing_read,
    }
}

fn when(at: i64) -> impl IntoView {
    view! { <time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time> }
}

#[component]
pub fn TokensPage(lang: Lang, view: TokensView) -> impl IntoView {
    let t = tokens(lang);
    let revoked = query("done").is_some_and(|d| d == REVOKED);
    let secret = view
        .created
        .clone()
        .map(|(name, secret)| view! { <NewSecret lang name secret /> });
    let list = if view.tokens.is_empty() {
        view! { <p data-testid="no-tokens">{t.empty}</p> }.into_any()
    } else {
        view! { <TokenTable lang view=view.clone() /> }.into_any()
    };
    view! {
        <Page lang title=t.title.to_owned() description=t.title.to_owned() rest="/tokens".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="tokens-title">
                <PortalNav lang />
                <h1 id="tokens-title">{t.title}</h1>
                <p class="lead">{t.intro}</p>
                <p>{t.docs_before}<a href=href(lang, "/docs/api")>{t.docs_link}</a></p>
                {secret}
                <FormErrorNotice lang />
                {revoked.then(|| view! { <p class="notice notice-ok" role="status" data-testid="notice">{t.revoked_notice}</p> })}
                {list}
                <CreateForm lang offered=view.offered />
            </section>
        </Page>
    }
    .into_any()
}

/// The secret of the token just created, with the warning that it is
/// shown this once (a copy button the shared `/copy.js` turns on).
#[component]
fn NewSecret(lang: Lang, name: String, secret: String) -> impl IntoView {
    let t = tokens(lang);
    view! {
        <div id="new-token" class="notice notice-ok secret" role="status" data-testid="new-token">
            <h2>{(t.secret_title)(&name)}</h2>
            <p class="copyable">
                <code id="token-secret" data-token-secret>{secret}</code>
                " "
                <app::portal::forms::CopyButton lang target="token-secret" />
            </p>
            <p><strong>{t.secret_once}</strong></p>
        </div>
        <script src="/copy.js" defer></script>
    }
}

#[component]
fn TokenTable(lang: Lang, view: TokensView) -> impl IntoView {
    let t = tokens(lang);
    let owner = view.owner;
    let rows = view
        .tokens
        .into_iter()
        .map(|row| view! { <TokenLine lang row owner now=view.now /> })
        .collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(t.title)>
            <table class="tokens phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{t.col_name}</th>
                        <th scope="col">{t.col_token}</th>
                        <th scope="col">{t.col_scopes}</th>
                        {owner.then(|| view! { <th scope="col">{t.col_creator}</th> })}
                        <th scope="col">{t.col_created}</th>
                        <th scope="col">{t.col_expires}</th>
                        <th scope="col">{t.col_last_used}</th>
                        <th scope="col">{t.col_state}</th>
                        <th scope="col"><span class="sr-only">{t.revoke}</span></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

#[component]
fn TokenLine(lang: Lang, row: TokenRow, owner: bool, now: i64) -> impl IntoView {
    let t = tokens(lang);
    let expired = row.expires_at.is_some_and(|at| at <= now);
    let (state, state_code) = match (row.revoked_at, expired) {
        (Some(_), _) => (t.state_revoked, "revoked"),
        (None, true) => (t.state_expired, "expired"),
        (None, false) => (t.state_active, "active"),
    };
    let last_used = match row.last_used {
        Some((at, ip)) => {
            view! { {when(at)}{ip.map(|ip| view! { " · "<span class="address">{ip}</span> })} }
                .into_any()
        }
        None => view! { {t.never_used} }.into_any(),
    };
    let revoke = (row.revocable && state_code == "active").then(|| {
        let confirm_id = format!("revoke-{}", row.id);
        let label_for = confirm_id.clone();
        view! {
            <form method="post" action=href(lang, "/tokens/revoke") class="inline">
                <CsrfField />
                <input type="hidden" name="id" value=row.id.clone() />
                <label class="option" for=label_for>
                    <input type="checkbox" id=confirm_id name="confirm" value="yes" required />
                    " "{(t.revoke_confirm)(&row.name)}
                </label>
                <button type="submit" class="secondary">{t.revoke}</button>
            </form>
        }
    });
    let scopes = row
        .scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let scopes_attr = scopes.clone();
    view! {
        <tr data-token=row.id.clone() data-state=state_code>
            <th scope="row">{row.name.clone()}</th>
            <td data-label=t.col_token><code data-token-prefix>{format!("gpu_{}…", row.prefix)}</code></td>
            <td data-label=t.col_scopes data-scopes=scopes_attr>{scopes}</td>
            {owner.then(|| view! { <td data-label=t.col_creator>{row.creator_email.clone()}</td> })}
            <td data-label=t.col_created>{when(row.created_at)}</td>
            <td data-label=t.col_expires>{row.expires_at.map_or_else(|| view! { {t.never_expires} }.into_any(), |at| when(at).into_any())}</td>
            <td data-label=t.col_last_used>{last_used}</td>
            <td data-label=t.col_state>{state}</td>
            <td>{revoke}</td>
        </tr>
    }
}

#[component]
fn CreateForm(lang: Lang, offered: Vec<Scope>) -> impl IntoView {
    let t = tokens(lang);
    let feedback = use_feedback();
    let chosen = feedback.value("scopes");
    let chosen: Vec<&str> = chosen.split_whitespace().collect();
    let scopes = offered
        .iter()
        .map(|scope| {
            let id = format!("scope-{}", scope.as_str().replace(':', "-"));
            let checked = chosen.contains(&scope.as_str());
            let label_for = id.clone();
            view! {
                <label class="option" for=label_for>
                    <input type="checkbox" id=id name="scope" value=scope.as_str() checked=checked />
                    " "{scope_words(lang, *scope)}
                </label>
            }
        })
        .collect_view();
    let expires = feedback.value("expires");
    let expires = if expires.is_empty() {
        "90".to_owned()
    } else {
        expires
    };
    let options = EXPIRY_DAYS
        .iter()
        .map(|d| (d.to_string(), (t.expires_in)(*d)))
        .chain([("never".to_owned(), t.expires_never.to_owned())])
        .map(|(value, words)| {
            let selected = value == expires;
            view! { <option value=value selected=selected>{words}</option> }
        })
        .collect_view();
    let name_field = FieldState::of("name", "token-name", true);
    view! {
        <h2>{t.create_title}</h2>
        <form method="post" action=href(lang, "/tokens")>
            <CsrfField />
            <div class="field">
                <label for="token-name">{t.field_name}</label>
                <input id="token-name" name="name" value=feedback.value("name") maxlength="60" required aria-describedby=name_field.described_by.clone() aria-invalid=name_field.invalid autofocus=name_field.autofocus />
                {name_field.message(lang)}
                <p class="hint" id="token-name-hint">{t.name_hint}</p>
            </div>
            <fieldset class="field">
                <legend>{t.field_scopes}</legend>
                {scopes}
                <p class="hint">{t.scopes_hint}</p>
            </fieldset>
            <div class="field">
                <label for="token-expires">{t.field_expires}</label>
                <select id="token-expires" name="expires">{options}</select>
            </div>
            <button type="submit">{t.create_submit}</button>
        </form>
    }
}

app::page_view!(TokensView => TokensPage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/tokens", MEMBERS, tokens_page),
        Route::post("/{lang}/tokens", MEMBERS, create),
        Route::post("/{lang}/tokens/revoke", MEMBERS, revoke),
    ]
}

impl From<TokenError> for PageError {
    fn from(error: TokenError) -> Self {
        let refusal = match error {
            TokenError::InvalidName => TokenRefusal::Name,
            TokenError::NoScopes => TokenRefusal::NoScopes,
            TokenError::ScopeNotAllowed => TokenRefusal::Scope,
            TokenError::InvalidExpiry => TokenRefusal::Expiry,
            TokenError::TooMany => TokenRefusal::TooMany,
            TokenError::NotFound => return PageError::NotFound,
            TokenError::Db(error) => return PageError::Unavailable(error),
        };
        FormError::Token(refusal).into()
    }
}

/// The page's data: owners see the organization's tokens, other members
/// their own.
async fn view_of(
    state: &AppState,
    m: &Membership,
    created: Option<(String, String)>,
) -> anyhow::Result<TokensView> {
    let owner = m.role == Role::Owner;
    let only = (!owner).then_some(m.user_id.as_str());
    let tokens = api_tokens::list(&state.db, &m.organization_id, only).await?;
    Ok(TokensView {
        tokens: tokens.into_iter().map(|t| TokenRow::new(t, m)).collect(),
        offered: api_tokens::scopes_for(m.role).to_vec(),
        owner,
        now: state.clock.now(),
        created,
    })
}

/// Where the secret of a token just created waits for the page (`once`).
const NEW_TOKEN: &str = "new-token";

async fn tokens_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    session: Session,
    parts: Parts,
) -> PageResult {
    let created = once::take(&session, &state.sealer, NEW_TOKEN).await;
    let secret_shown = created.is_some();
    let view = view_of(&state, &m, created).await?;
    Ok(once::answer(page(&state, parts, view).await?, secret_shown))
}

/// The create form's fields: `scope` repeats, one per ticked box.
#[derive(Default)]
struct NewTokenForm {
    name: String,
    scopes: Vec<String>,
    expires: String,
}

impl NewTokenForm {
    fn read(fields: Vec<(String, String)>) -> NewTokenForm {
        let mut form = NewTokenForm::default();
        for (name, value) in fields {
            match name.as_str() {
                "name" => form.name = value,
                "scope" => form.scopes.push(value),
                "expires" => form.expires = value,
                _ => {}
            }
        }
        form
    }

    /// `never`, or a number of days the backend checks.
    fn expires_in_days(&self) -> Result<Option<i64>, TokenError> {
        match self.expires.as_str() {
            "never" => Ok(None),
            days => days
                .parse()
                .map(Some)
                .map_err(|_| TokenError::InvalidExpiry),
        }
    }
}

async fn create(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    session: Session,
    parts: Parts,
    SameOrigin(fields): SameOrigin<Vec<(String, String)>>,
) -> PageResult {
    let form = NewTokenForm::read(fields);
    let scopes_typed = form.scopes.join(" ");
    let kept = [
        ("name", form.name.as_str()),
        ("scopes", scopes_typed.as_str()),
        ("expires", form.expires.as_str()),
    ];
    let scopes: Option<Vec<Scope>> = form.scopes.iter().map(|s| Scope::parse(s)).collect();
    let Some(scopes) = scopes else {
        return Err(refused(FormError::Token(TokenRefusal::Scope), &kept));
    };
    let expires_in_days = form
        .expires_in_days()
        .map_err(|e| PageError::from(e).keeping(&kept))?;
    let ip = client_ip(&parts);
    let new = NewToken {
        organization_id: &m.organization_id,
        user_id: &m.user_id,
        email: &current.user.email,
        role: m.role,
        ip: ip.as_deref(),
        name: &form.name,
        scopes: &scopes,
        expires_in_days,
    };
    let (token, secret) = api_tokens::create(&state.db, &state.clock, &new)
        .await
        .map_err(|e| PageError::from(e).keeping(&kept))?;
    once::stash(&session, &state.sealer, NEW_TOKEN, &(token.name, secret)).await?;
    Ok(redirect(lang_of(&parts), "/tokens#new-token"))
}

#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    id: String,
    #[serde(default)]
    confirm: String,
}

async fn revoke(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    let ip = client_ip(&parts);
    let by = Actor {
        organization_id: &m.organization_id,
        user_id: &m.user_id,
        email: &current.user.email,
        ip: ip.as_deref(),
    };
    let owner = m.role == Role::Owner;
    api_tokens::revoke(
        &state.db,
        &state.clock,
        &m.organization_id,
        &form.id,
        &by,
        owner,
    )
    .await?;
    Ok(redirect(
        lang_of(&parts),
        &format!("/tokens?done={REVOKED}"),
    ))
}
