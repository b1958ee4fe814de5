//! The staff area's words: its home and menu, and settling invoices by
//! hand on the finance page.

pub struct Staff {
    pub title: &'static str,
    pub intro: &'static str,
    /// The staff menu's name for screen readers, and its links.
    pub nav_label: &'static str,
    pub nav_home: &'static str,
    pub nav_hosts: &'static str,
    pub nav_orders: &'static str,
    pub nav_finance: &'static str,
    pub nav_outbox: &'static str,
    pub nav_audit: &'static str,
    pub no_hosts: &'static str,
    /// An empty list on the finance page says so rather than showing
    /// a bare heading.
    pub none_open: &'static str,
    pub none: &'static str,
    /// (hosts reporting a fault, maintenance windows open)
    pub maintenance_summary: fn(i64, i64) -> String,
    /// (failed in the last 30 days, paid and waiting for their server)
    pub orders_summary: fn(i64, i64) -> String,
    /// (open invoices, of them overdue, amount due)
    pub finance_summary: fn(i64, i64, &str) -> String,
    pub outbox_summary: &'static str,
    pub audit_summary: &'static str,
    pub nav_maintenance: &'static str,
    // Settling an invoice by hand.
    pub pay_open: &'static str,
    pub pay_date: &'static str,
    pub pay_date_hint: &'static str,
    pub pay_amount: &'static str,
    pub pay_amount_hint: fn(&str) -> String,
    pub pay_differs: &'static str,
    pub pay_reason: &'static str,
    pub pay_submit: &'static str,
    pub void_open: &'static str,
    pub void_confirm: &'static str,
    pub void_submit: &'static str,
    pub write_off_open: &'static str,
    pub write_off_confirm: &'static str,
    pub write_off_submit: &'static str,
    pub reason: &'static str,
    pub reason_hint: &'static str,
    pub err_date: &'static str,
    pub err_date_future: &'static str,
    pub err_date_before: &'static str,
    pub err_amount: &'static str,
    /// The amount due.
    pub err_amount_differs: fn(&str) -> String,
    pub err_reason: &'static str,
    pub err_confirm: &'static str,
    pub settled_title: &'static str,
    pub settled_hint: &'static str,
    pub col_invoice: &'static str,
    pub col_customer: &'static str,
    pub col_paid_on: &'static str,
    pub col_received: &'static str,
    pub col_reason: &'static str,
    pub col_recorded: &'static str,
    pub written_off: &'static str,
}
