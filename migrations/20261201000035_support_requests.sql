-- Support requests (issue 15): a thread per request between an
-- organization's members and staff. States as text with CHECK constraints,
-- times as epoch seconds, flags as 0/1.
create table support_requests (
    id text primary key,
    -- What people quote on the phone and in mail: "SR-" and six random
    -- characters (ids are time-ordered, so their first characters are not).
    reference text not null unique,
    organization_id text not null references organizations (id),
    category text not null check (category in ('scaling', 'hardware', 'billing', 'account', 'other')),
    subject text not null,
    state text not null check (state in ('open', 'waiting', 'answered', 'closed')),
    -- The language mails about this request are written in.
    lang text not null check (lang in ('zh', 'en')),
    server_id text references servers (id),
    -- Null when the system opened it (a degraded host).
    opened_by text references users (id),
    origin text not null default 'customer' check (origin in ('customer', 'degraded_host')),
    -- A staff user.
    assigned_to text references users (id),
    -- The scaling-out questions, for category scaling only.
    scaling_cards text,
    scaling_workload text,
    scaling_model_size text,
    scaling_timeline text,
    -- When the current side's turn began: the queue's "oldest waiting first"
    -- and its age filter.
    turn_since bigint not null,
    -- When it entered `waiting`, and when the reminder went out; the
    -- auto-close counts from these.
    waiting_since bigint,
    reminded_at bigint,
    first_response_at bigint,
    closed_at bigint,
    closed_by text check (closed_by in ('customer', 'staff', 'auto')),
    created_at bigint not null,
    updated_at bigint not null,
    check ((state = 'closed') = (closed_at is not null))
);
create index support_requests_by_organization on support_requests (organization_id, updated_at);
create index support_requests_queue on support_requests (state, turn_since);
create index support_requests_by_server on support_requests (server_id);
-- One open thread per degraded server, however often Fleet health reports it.
create unique index support_requests_one_per_degraded_server on support_requests (server_id)
    where origin = 'degraded_host' and state <> 'closed';

create table support_messages (
    id text primary key,
    request_id text not null references support_requests (id),
    author_kind text not null check (author_kind in ('customer', 'staff', 'system')),
    -- Null for system messages.
    author_id text references users (id),
    author_name text not null,
    -- Staff notes customers never see.
    internal bigint not null default 0 check (internal in (0, 1)),
    body text not null,
    created_at bigint not null
);
create index support_messages_by_request on support_messages (request_id, created_at);
