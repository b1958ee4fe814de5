//! An invoice's status, as stored and shown. The names are Stripe's
//! (`draft`, `open`, `paid`, `void`, `uncollectible`): invoices mirrored
//! from Stripe and those issued here for bank transfer share them.

crate::named_enum! {
    pub enum InvoiceStatus {
        /// Being prepared; never listed or sent.
        Draft = "draft",
        /// Issued and waiting for payment (overdue once past its due date).
        Open = "open",
        Paid = "paid",
        /// Cancelled; nothing is owed.
        Void = "void",
        /// Written off by finance.
        Uncollectible = "uncollectible",
    }
}

impl InvoiceStatus {
    /// The statuses the invoice lists may be filtered by (a draft is never
    /// listed).
    pub const LISTED: [InvoiceStatus; 4] = [
        InvoiceStatus::Open,
        InvoiceStatus::Paid,
        InvoiceStatus::Void,
        InvoiceStatus::Uncollectible,
    ];
}
