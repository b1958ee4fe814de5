-- The API's Idempotency-Key (IETF draft): one row per key a member used on
-- a POST or PATCH. The fingerprint (method, path and body) tells a retry
-- from another request under the same key; the stored answer is what a
-- retry gets back. `status` is null while the first request is running.
-- Kept a day (housekeeping), as Stripe keeps its keys.
create table api_idempotency (
    organization_id text not null,
    user_id text not null,
    idempotency_key text not null,
    fingerprint text not null,
    status bigint,
    content_type text,
    location text,
    body text,
    created_at bigint not null,
    primary key (organization_id, user_id, idempotency_key)
);
create index api_idempotency_created on api_idempotency (created_at);
