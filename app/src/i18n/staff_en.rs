use super::staff::Staff;

pub static STAFF_EN: Staff = Staff {
    title: "Staff",
    intro:
        "What the hosting company’s own people look after. The counts are as of loading this page.",
    nav_label: "Staff area",
    nav_home: "Staff home",
    nav_hosts: "Hosts and maintenance",
    nav_orders: "Orders",
    nav_finance: "Finance",
    nav_outbox: "Outbox (development)",
    nav_audit: "Audit log",
    no_hosts: "No hosts racked yet.",
    none_open: "No open invoices.",
    none: "None.",
    maintenance_summary: |degraded, windows| {
        let hosts = if degraded == 1 { "host" } else { "hosts" };
        let open = if windows == 1 { "window" } else { "windows" };
        format!("{degraded} {hosts} reporting a fault, {windows} maintenance {open} open.")
    },
    orders_summary: |failed, waiting| {
        format!("{failed} failed in the last 30 days, {waiting} paid and waiting for their server.")
    },
    finance_summary: |open, overdue, due| {
        let invoices = if open == 1 { "invoice" } else { "invoices" };
        format!("{open} unpaid {invoices} ({due} to collect), {overdue} of them overdue.")
    },
    outbox_summary: "Mail the development server would have sent, with its links.",
    audit_summary: "Security and money actions of every organization.",
    nav_maintenance: "Maintenance",
    pay_open: "Record payment…",
    pay_date: "Payment date",
    pay_date_hint: "The day the transfer arrived, as on the bank statement.",
    pay_amount: "Amount received (€)",
    pay_amount_hint: |due| format!("Amount due: {due}."),
    pay_differs: "The amount received differs from the amount due; record it anyway.",
    pay_reason: "Why it differs (required if it does)",
    pay_submit: "Record payment",
    void_open: "Void…",
    void_confirm: "This invoice was issued in error: void it. This can’t be undone.",
    void_submit: "Void invoice",
    write_off_open: "Write off…",
    write_off_confirm: "The customer will not pay: write this invoice off. This can’t be undone.",
    write_off_submit: "Write off invoice",
    reason: "Reason",
    reason_hint: "Kept with the invoice and in the audit log.",
    err_date: "Enter the payment date as on the bank statement (YYYY-MM-DD).",
    err_date_future: "The payment date can’t be after today.",
    err_date_before: "The payment date can’t be before the invoice date.",
    err_amount: "Enter the amount received in euros, like 284.41.",
    err_amount_differs: |due| {
        format!("The amount received isn’t the amount due ({due}). Check it, or tick “amount differs” and say why.")
    },
    err_reason: "Give the reason: it is kept with the invoice and in the audit log.",
    err_confirm: "Tick the confirmation to close the invoice.",
    settled_title: "Settled by hand",
    settled_hint: "Invoices finance marked paid, voided or wrote off, most recent first.",
    col_invoice: "Invoice",
    col_customer: "Customer",
    col_paid_on: "Paid on",
    col_received: "Received",
    col_reason: "Reason",
    col_recorded: "Recorded",
    written_off: "Written off",
};
