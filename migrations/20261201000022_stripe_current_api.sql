-- Stripe at the crate's API version (issue 11).
-- Webhook events keep their signature, so applying one re-verifies what
-- was stored; an event in another API version is kept, not applied, until
-- an operator replays it (held_reason says why).
alter table stripe_events add column signature text;
alter table stripe_events add column api_version text;
alter table stripe_events add column held_reason text;
create index stripe_events_held on stripe_events (held_reason) where held_reason is not null;

-- VAT Tax Rates created at Stripe, one per country and rate.
create table stripe_tax_rates (
    rate_key text primary key,
    tax_rate_id text not null,
    country text not null,
    rate_bp bigint not null
);

-- The subscription a Checkout created, known before the order is paid
-- (asynchronous payments), and the refund of a payment we could not
-- deliver for.
alter table orders add column stripe_subscription_id text;
alter table orders add column refund_id text;

-- The payment that settled a Stripe invoice (refunds and disputes name
-- it), and disputes flagged for finance.
alter table invoices add column stripe_payment_intent text;
alter table invoices add column disputed_at bigint;
alter table organizations add column disputed_at bigint;
