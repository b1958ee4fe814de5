-- What happened, for the API's event feed (GET /events) and webhooks.
-- Writers insert an event in the transaction that made it happen, with no
-- `seq`; the publisher (one at a time: it holds the counter's row) gives
-- committed events the next numbers in the order they were recorded, so a
-- reader paging by `seq` never skips an event that commits late.
-- `organization_id` is null for events everyone may see (stock changes).
create table api_events (
    id text primary key,
    seq bigint unique,
    organization_id text,
    type text not null,
    subject_id text not null,
    data text not null,
    created_at bigint not null
);
create index api_events_unsequenced on api_events (seq, id);
create index api_events_feed on api_events (organization_id, seq);

create table api_event_counter (
    id bigint primary key,
    last_seq bigint not null
);
insert into api_event_counter (id, last_seq) values (1, 0);

-- Where an organization wants its events pushed. The signing secret is
-- sealed (it must be read back to sign); after a roll the previous one
-- still signs until `previous_until`, so receivers can switch without a
-- gap. `events` is a newline list of event types or prefixes (`server.`),
-- or `*`.
create table webhook_endpoints (
    id text primary key,
    organization_id text not null,
    url text not null,
    description text not null,
    events text not null,
    secret text not null,
    previous_secret text,
    previous_until bigint,
    enabled bigint not null,
    created_by text not null,
    created_at bigint not null
);
create index webhook_endpoints_org on webhook_endpoints (organization_id);

-- One event (or ping) to one endpoint: retried with backoff until the
-- endpoint answers 2xx, then `succeeded`, or `failed` after the last try.
-- The last answer (status and the start of its body) is kept to show.
create table webhook_deliveries (
    id text primary key,
    endpoint_id text not null references webhook_endpoints (id),
    organization_id text not null,
    event_id text not null,
    event_type text not null,
    payload text not null,
    state text not null,
    attempts bigint not null,
    next_attempt_at bigint not null,
    lease_until bigint,
    last_status bigint,
    last_response text,
    last_error text,
    delivered_at bigint,
    created_at bigint not null
);
create index webhook_deliveries_due on webhook_deliveries (state, next_attempt_at);
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at);
