//! API tokens made the way a member makes them: on the portal's API tokens
//! page, the secret read from the page the form redirects to.

use super::{Page, TestApp};

/// Creates a token that never expires and answers its secret.
pub async fn create_token(
    app: &TestApp,
    member: &reqwest::Client,
    name: &str,
    scopes: &[&str],
) -> String {
    create_token_expiring(app, member, name, scopes, "never").await
}

/// Creates a token expiring after `expires` (`30`, `90`, `365` days or
/// `never`) and answers its secret.
pub async fn create_token_expiring(
    app: &TestApp,
    member: &reqwest::Client,
    name: &str,
    scopes: &[&str],
    expires: &str,
) -> String {
    let page = post_new_token(app, member, name, scopes, expires).await;
    let page = app.follow(member, page).await;
    assert_eq!(
        page.status,
        200,
        "creating the token {name:?}: {}",
        super::strip_tags(&page.body)
    );
    token_secret(&page.body)
        .unwrap_or_else(|| panic!("no secret on the page after creating {name:?}"))
}

/// Posts the create form as it is (for refusals): the raw answer.
pub async fn post_new_token(
    app: &TestApp,
    member: &reqwest::Client,
    name: &str,
    scopes: &[&str],
    expires: &str,
) -> Page {
    let mut fields = vec![("name", name), ("expires", expires)];
    fields.extend(scopes.iter().map(|s| ("scope", *s)));
    app.post_as(member, "/en/tokens", "/en/tokens", &fields, &[])
        .await
}

/// The secret shown once in `<code data-token-secret>`, if the page has
/// one of the right shape (`gpu_` and 64 lowercase hex characters).
pub fn token_secret(body: &str) -> Option<String> {
    let at = body.find("data-token-secret")?;
    let rest = &body[at..];
    let start = rest.find('>')? + 1;
    let end = rest[start..].find('<')? + start;
    let secret = rest[start..end].trim();
    let random = secret.strip_prefix("gpu_")?;
    let hex = random.len() == 64
        && random
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then(|| secret.to_owned())
}

/// The id of the member's newest token named `name`, from the tokens
/// page (owners see every member's tokens).
pub async fn token_id(app: &TestApp, member: &reqwest::Client, name: &str) -> String {
    let page = app.get_as(member, "/en/tokens").await;
    assert_eq!(page.status, 200, "the tokens page");
    token_id_in(&page.body, name).unwrap_or_else(|| panic!("no token named {name:?} listed"))
}

/// The id of the first (newest) row of the list whose name is `name`.
pub fn token_id_in(body: &str, name: &str) -> Option<String> {
    body.split("<tr data-token=\"").skip(1).find_map(|row| {
        let id = row.split('"').next()?;
        let cell = row.split("<th scope=\"row\">").nth(1)?;
        let shown = cell.split("</th>").next()?;
        (super::strip_tags(shown) == escape(name)).then(|| id.to_owned())
    })
}

/// A name as the page's HTML writes it.
fn escape(name: &str) -> String {
    name.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Revokes the member's token named `name` through its confirmed form.
pub async fn revoke_token(app: &TestApp, member: &reqwest::Client, name: &str) {
    let id = token_id(app, member, name).await;
    let page = revoke_token_id(app, member, &id).await;
    assert_eq!(
        page.location(),
        "/en/tokens?done=token-revoked",
        "revoking {name:?}: {} {}",
        page.status,
        super::strip_tags(&page.body)
    );
}

/// Posts the revoke form for a token id (confirmed): the raw answer.
pub async fn revoke_token_id(app: &TestApp, member: &reqwest::Client, id: &str) -> Page {
    app.post_as(
        member,
        "/en/tokens",
        "/en/tokens/revoke",
        &[("id", id), ("confirm", "yes")],
        &[],
    )
    .await
}
