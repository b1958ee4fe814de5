-- Where a credit note's money went when it could not wait for one of our
-- invoices: onto the customer's Stripe balance (their next Stripe
-- invoice), a Stripe refund, or a bank transfer finance made.
alter table credit_notes add column paid_out_via text;
alter table credit_notes add column paid_out_ref text;
alter table credit_notes add column paid_out_cents bigint;
alter table credit_notes add column paid_out_at bigint;
