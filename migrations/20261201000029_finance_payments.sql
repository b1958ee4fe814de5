-- What finance recorded when it settled an invoice by hand. `paid_at`
-- (already there) holds the day the transfer arrived; next to it the
-- amount the bank statement shows, why an invoice was paid a different
-- amount, voided or written off, and who recorded it when (the payment
-- day may be days before the day it was booked).
alter table invoices add column paid_amount_cents bigint;
alter table invoices add column settled_reason text;
alter table invoices add column settled_by text;
alter table invoices add column settled_at bigint;
