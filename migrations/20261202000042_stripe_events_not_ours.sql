-- A Stripe event about an object that is not ours (an invoice of a
-- customer we never made, a subscription naming no order of ours: other
-- products sharing the Stripe account) is marked processed with the reason
-- here at once, told apart from a late one (whose object we will know
-- soon), which is retried.
alter table stripe_events add column ignored_reason text;
