-- What became of a payment dispute, for finance: Stripe's dispute status
-- (`needs_response` … `won`, `lost`) and when Stripe closed it. A lost
-- dispute keeps the invoice flagged (`disputed_at`): the bank took the
-- money back.
alter table invoices add column dispute_status text;
alter table invoices add column dispute_closed_at bigint;
