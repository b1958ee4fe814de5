//! The product's own words around the content: navigation, tables, stock,
//! configuration, errors. Parameterised strings are functions.

pub struct Ui {
    pub brand: &'static str,
    pub skip_to_content: &'static str,
    pub nav_label: &'static str,
    pub nav_plans: &'static str,
    pub nav_sites: &'static str,
    pub nav_latency: &'static str,
    pub nav_faq: &'static str,
    /// The name of the *other* language, in that language: shown on the switch.
    pub switch_to_other: &'static str,
    pub switch_label: &'static str,

    pub home_title: &'static str,
    pub home_description: &'static str,

    pub plans_caption: &'static str,
    pub col_plan: &'static str,
    pub col_cores: &'static str,
    /// "16 dedicated cores": the count in running text, not the column header.
    pub cores: fn(u32) -> String,
    pub col_memory: &'static str,
    pub col_nvme: &'static str,
    pub col_gpu: &'static str,
    pub col_port: &'static str,
    pub col_price: &'static str,
    pub col_action: &'static str,
    pub most_popular: &'static str,
    pub per_month: &'static str,
    pub configure: &'static str,
    pub configure_plan_label: fn(&str) -> String,
    pub vat_note: &'static str,
    pub traffic_note: &'static str,
    pub sold_out_everywhere: &'static str,
    pub available_at_sites: fn(u32) -> String,

    pub stock_in_stock: &'static str,
    pub stock_few: fn(u32) -> String,
    pub stock_sold_out: &'static str,
    pub stock_read_at: &'static str,
    pub stock_caption: &'static str,
    pub sites_caption: &'static str,
    pub col_site: &'static str,
    /// A site's city with its country: "Frankfurt (Germany)", "法兰克福（德国）".
    pub city_in_country: fn(&str, &str) -> String,
    /// The name of a table's scroll box, distinct from the section it sits
    /// in (two landmarks of one name confuse screen-reader navigation).
    pub table_of: fn(&str) -> String,
    /// What follows a term before its explanation: ": " or the
    /// full-width "：".
    pub colon: &'static str,
    pub col_note: &'static str,
    pub col_use: &'static str,

    pub latency_caption: &'static str,
    pub latency_city: &'static str,
    pub latency_nearest: &'static str,
    pub latency_rtt: &'static str,
    pub latency_pick_city: &'static str,
    pub latency_all_cities: &'static str,
    /// The link that shows every city on a phone, which lists the best
    /// connected few first.
    pub latency_show_all: fn(usize) -> String,
    pub latency_show: &'static str,
    pub latency_city_heading: fn(&str) -> String,
    pub latency_date: &'static str,
    pub latency_estimated_date: &'static str,
    pub latency_estimated_note: &'static str,
    pub latency_estimate_tag: &'static str,
    pub latency_none_yet: &'static str,
    pub ms: &'static str,

    pub configure_title: fn(&str) -> String,
    pub configure_description: &'static str,
    pub configure_heading: &'static str,
    pub configure_intro: &'static str,
    pub configure_plan: &'static str,
    pub configure_site: &'static str,
    pub configure_update: &'static str,
    pub configure_summary: &'static str,
    pub configure_price: &'static str,
    pub configure_stock: &'static str,
    pub configure_term: &'static str,
    pub configure_sold_out: fn(&str, &str) -> String,
    pub configure_try_sites: &'static str,
    pub configure_no_stock_anywhere: &'static str,
    pub configure_choose_site: &'static str,
    pub configure_bad_choice: &'static str,
    pub configure_next_step: &'static str,
    pub configure_order: &'static str,
    pub back_to_plans: &'static str,

    pub not_found_title: &'static str,
    pub not_found_heading: &'static str,
    pub not_found_body: &'static str,
    pub not_found_home: &'static str,
    pub error_title: &'static str,
    pub error_body: &'static str,

    pub footer_prices: &'static str,
    /// Says what an SLA breach earns in the same words as the failure
    /// section and the FAQ (docs/SLA.md): a credit note without a claim.
    pub footer_sla: &'static str,
    /// A copy button (`/copy.js`): its word, what it says once done, and
    /// its name for screen readers ("Copy IPv4 address").
    pub copy: &'static str,
    pub copied: &'static str,
    pub copy_what: fn(&str) -> String,
}
