-- Snapshots of a server's disks, kept at its site. `creating` and
-- `restoring` run as jobs; a deleted snapshot's row goes once Fleet has
-- removed it. All of a server's snapshots go when the server is wiped.
create table snapshots (
    id text primary key,
    server_id text not null references servers (id),
    organization_id text not null,
    name text not null,
    state text not null check (state in ('creating', 'ready', 'restoring', 'deleting', 'failed')),
    size_bytes bigint not null default 0,
    created_at bigint not null,
    ready_at bigint,
    unique (server_id, name)
);
