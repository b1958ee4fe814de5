-- A host that still works but reports a fault (ECC errors climbing, a fan)
-- is degraded: it stays allocated, its customer is told, and staff propose
-- a window to replace the part. The customer accepts it or proposes
-- another time; accepted windows don't count against the SLA.
alter table hosts add column degraded_reason text;
alter table hosts add column degraded_at bigint;

create table maintenance_windows (
    id text primary key,
    server_id text not null references servers (id),
    host_id text not null references hosts (id),
    starts_at bigint not null,
    ends_at bigint not null,
    state text not null check (state in ('proposed', 'accepted', 'declined', 'started', 'done', 'withdrawn')),
    proposed_by text not null check (proposed_by in ('staff', 'customer')),
    note text not null default '',
    created_at bigint not null,
    decided_at bigint
);
create index maintenance_windows_by_server on maintenance_windows (server_id, starts_at);
create index maintenance_windows_due on maintenance_windows (state, starts_at);
