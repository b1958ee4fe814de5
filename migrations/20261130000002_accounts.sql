-- Accounts, organizations and the security baseline.

create table organizations (
    id text primary key,
    name text not null,
    require_two_factor bigint not null default 0 check (require_two_factor in (0, 1)),
    created_at bigint not null
);

create table users (
    id text primary key,
    -- Stored lowercased; unique across the product.
    email text not null unique,
    name text not null,
    company text,
    lang text not null check (lang in ('zh', 'en')),
    password_hash text not null,
    email_verified_at bigint,
    is_staff bigint not null default 0 check (is_staff in (0, 1)),
    created_at bigint not null,
    updated_at bigint not null
);

create table memberships (
    organization_id text not null references organizations (id),
    user_id text not null references users (id),
    role text not null check (role in ('owner', 'technical', 'billing')),
    created_at bigint not null,
    primary key (organization_id, user_id)
);
create index memberships_by_user on memberships (user_id);

-- Single-use links sent by mail; only a hash of the token is stored.
create table email_tokens (
    token_hash text primary key,
    user_id text not null references users (id),
    purpose text not null check (purpose in ('verify', 'reset')),
    expires_at bigint not null,
    used_at bigint,
    created_at bigint not null
);
create index email_tokens_by_user on email_tokens (user_id, purpose);

-- Failed logins, by account and by client address, for throttling.
create table login_failures (
    id text primary key,
    email text not null,
    ip text not null,
    at bigint not null
);
create index login_failures_by_email on login_failures (email, at);
create index login_failures_by_ip on login_failures (ip, at);

-- Sessions (tower-sessions records as JSON); user_id lets a user end the
-- other sessions after a password change.
create table sessions (
    id text primary key,
    user_id text,
    data text not null,
    expires_at bigint not null
);
create index sessions_by_user on sessions (user_id);
create index sessions_by_expiry on sessions (expires_at);

create table audit_log (
    id text primary key,
    organization_id text,
    user_id text,
    actor text not null,
    action text not null,
    detail text not null,
    ip text,
    at bigint not null
);
create index audit_by_org on audit_log (organization_id, at);

-- Development mail: what would have been sent, for the staff outbox page.
create table mail_outbox (
    id text primary key,
    recipient text not null,
    subject text not null,
    body text not null,
    created_at bigint not null
);
create index mail_outbox_by_recipient on mail_outbox (recipient, created_at);
