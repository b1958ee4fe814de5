//! Billing helpers: every organization gives a billing profile before its
//! first order, so `TestApp::member` gives one (a German consumer, unless a
//! test saves another); and the text of an invoice PDF.

use super::{Page, TestApp};

/// The address every test profile has.
pub const STREET: &str = "Teststraße 1";
pub const POSTAL_CODE: &str = "10115";
pub const CITY: &str = "Berlin";

impl TestApp {
    /// Saves the organization's billing profile through its form, as an
    /// owner or billing member: `legal_name` in `country` at the test
    /// address, no VAT ID, invoices mailed to `email`.
    pub async fn give_billing_profile(
        &self,
        browser: &reqwest::Client,
        legal_name: &str,
        country: &str,
        email: &str,
    ) -> Page {
        let fields = [
            ("legal_name", legal_name),
            ("address", STREET),
            ("postal_code", POSTAL_CODE),
            ("city", CITY),
            ("country", country),
            ("vat_id", ""),
            ("billing_email", email),
        ];
        let page = self
            .post_as(
                browser,
                "/en/billing/profile",
                "/en/billing/profile",
                &fields,
                &[],
            )
            .await;
        assert_eq!(
            page.status, 303,
            "saving the billing profile: {}",
            page.body
        );
        page
    }

    /// `owner` invites `email` as a billing member, who signs up in
    /// Chinese and accepts: mail to them is in Chinese.
    pub async fn chinese_billing_member(&self, owner: &reqwest::Client, email: &str) {
        self.post_as(
            owner,
            "/en/members",
            "/en/members/invite",
            &[("email", email), ("role", "billing")],
            &[],
        )
        .await;
        let invitation = self.mailed_link(email);
        let browser = self.browser();
        let fields = [
            ("name", "账务"),
            ("email", email),
            ("password", super::PASSWORD),
            ("company", ""),
            ("lang", "zh"),
        ];
        self.post_as(&browser, "/zh/signup", "/zh/signup", &fields, &[])
            .await;
        let link = self.mailed_link(email);
        let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
        self.post_as(&browser, &link, "/zh/verify", &[("token", &token)], &[])
            .await;
        let login = [("email", email), ("password", super::PASSWORD)];
        self.post_as(&browser, "/zh/login", "/zh/login", &login, &[])
            .await;
        let token = invitation.split("token=").nth(1).unwrap_or_default();
        let page = self
            .post_as(
                &browser,
                &invitation,
                "/zh/invite",
                &[("token", token)],
                &[],
            )
            .await;
        assert_eq!(page.status, 303, "{email} joins: {}", page.body);
    }
}

// The PDF decoder of the backend's own layout tests, shared rather than
// copied: it reads back what `backend::billing::pdf::render` writes.
#[path = "../../../../backend/src/billing/pdf/tests/extract.rs"]
mod extract;

/// The text of an invoice PDF, one line per text object.
pub fn pdf_text(pdf: &[u8]) -> String {
    extract::extract(pdf).join("\n")
}
