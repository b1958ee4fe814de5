-- Stripe's billing_cycle_anchor of a server's subscription: Stripe's
-- periods, and so the term ends a cancellation may choose, are counted
-- from it. term_start stays the moment the server first ran.
alter table servers add column billing_anchor bigint;
