-- The Stripe subscription an invoice bills, so its lines can be tied to
-- the server once the subscription's checkout is applied (events arrive
-- in any order).
alter table invoices add column stripe_subscription_id text;
