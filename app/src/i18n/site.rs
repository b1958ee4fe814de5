//! The frame around every page (header account links, footer) and the
//! pages every site owes its visitors: support, terms, privacy, imprint.
//! Also the names of the probe cities' countries and regions.

/// A titled part of a long page.
pub struct Part {
    pub heading: &'static str,
    pub paras: &'static [&'static str],
}

pub struct Site {
    pub log_in: &'static str,
    pub sign_up: &'static str,
    /// The accessible name of the header's sign-in links.
    pub account_links_label: &'static str,
    pub footer_label: &'static str,
    pub support: &'static str,
    pub terms: &'static str,
    pub privacy: &'static str,
    pub imprint: &'static str,

    pub support_title: &'static str,
    pub support_description: &'static str,
    pub support_intro: &'static str,
    pub support_write_to: &'static str,
    pub support_include_heading: &'static str,
    pub support_include: &'static [&'static str],
    pub support_no_promise: &'static str,
    pub support_self_heading: &'static str,
    pub support_self_intro: &'static str,
    pub support_servers_link: &'static str,
    pub support_billing_link: &'static str,
    pub support_account_link: &'static str,
    pub support_scale: &'static str,

    pub terms_title: &'static str,
    pub terms_description: &'static str,
    /// "These terms apply between you and {company}."
    pub terms_party: fn(&str) -> String,
    pub terms_parts: &'static [Part],
    pub terms_sla_heading: &'static str,
    pub terms_sla_intro: &'static str,
    pub sla_availability: &'static str,
    pub sla_credit: &'static str,
    pub sla_rows: &'static [(&'static str, &'static str)],
    pub terms_sla_after: &'static [&'static str],

    pub privacy_title: &'static str,
    pub privacy_description: &'static str,
    /// "{company} is responsible for the data below."
    pub privacy_controller: fn(&str) -> String,
    pub privacy_parts: &'static [Part],
    pub privacy_contact: &'static str,

    pub imprint_title: &'static str,
    pub imprint_description: &'static str,
    pub imprint_intro: &'static str,
    pub imprint_name: &'static str,
    pub imprint_address: &'static str,
    pub imprint_register: &'static str,
    pub imprint_vat_id: &'static str,
    pub imprint_email: &'static str,

    /// The latency table's column of countries and regions.
    pub latency_country: &'static str,
}
