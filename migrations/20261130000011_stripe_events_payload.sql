-- Webhook events are stored whole and applied by a job, so the endpoint
-- answers Stripe at once; the last event applied to a subscription keeps
-- older events, arriving late, from undoing newer ones.
alter table stripe_events add column payload text not null default '';
alter table servers add column stripe_event_at bigint;
alter table servers add column cancel_at_period_end bigint not null default 0
    check (cancel_at_period_end in (0, 1));

-- Stripe Prices of the catalog, by our lookup key (plan:g-ada,
-- addon:offsite-backup:g-ada), written by `server stripe sync-catalog`.
create table stripe_prices (
    lookup_key text primary key,
    product_id text not null,
    price_id text not null,
    amount_cents bigint not null,
    synced_at bigint not null
);

alter table orders add column stripe_session_id text;
