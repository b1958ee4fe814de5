-- Downtime per server (a failed host until the server runs again) and the
-- SLA credit worked out for each server and closed month, once.
create table server_downtime (
    id text primary key,
    server_id text not null references servers (id),
    started_at bigint not null,
    ended_at bigint,
    cause text not null
);
create index server_downtime_by_server on server_downtime (server_id, started_at);

create table sla_credits (
    server_id text not null references servers (id),
    -- YYYY-MM (UTC).
    month text not null,
    availability_ppm bigint not null,
    down_secs bigint not null,
    credit_cents bigint not null,
    credit_note text,
    created_at bigint not null,
    primary key (server_id, month)
);
