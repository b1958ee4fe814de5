-- API tokens (issue 14): a member of an organization creates them for
-- scripts that call /api/v1. Only the SHA-256 of the secret is kept (the
-- secret is shown once); `prefix` is the first 8 hex characters of its
-- random part, so people can tell their tokens apart. `scopes` is a space
-- separated list of `read`, `servers:write`, `billing:read`. A token acts
-- for its creator (`user_id`) and stops working when the creator leaves
-- the organization or loses a role its scopes need: that is checked on
-- each use against `memberships`, not stored here.
create table api_tokens (
    id text primary key,
    organization_id text not null references organizations (id),
    user_id text not null references users (id),
    name text not null check (name <> ''),
    prefix text not null check (length(prefix) = 8),
    secret_hash text not null unique,
    scopes text not null check (scopes <> ''),
    created_at bigint not null,
    expires_at bigint,
    revoked_at bigint,
    -- Written at most once a minute per token, or when the address changes.
    last_used_at bigint,
    last_used_ip text,
    check (expires_at is null or expires_at > created_at)
);
create index api_tokens_by_organization on api_tokens (organization_id, created_at);

-- Every address a token was used from: a new one goes to the audit log.
create table api_token_addresses (
    token_id text not null references api_tokens (id),
    ip text not null,
    first_seen_at bigint not null,
    primary key (token_id, ip)
);
