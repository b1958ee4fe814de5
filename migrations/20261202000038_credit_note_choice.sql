-- How an SLA credit note of a Stripe customer is passed on (`balance` or
-- `refund`), its gross amount and the payment a refund goes back to,
-- stored once before Stripe is asked, so every retry carries out the same
-- request under the same key.
alter table credit_notes add column pass_on_as text;
alter table credit_notes add column pass_on_cents bigint;
alter table credit_notes add column pass_on_payment text;
