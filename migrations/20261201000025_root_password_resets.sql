-- A customer who lost the root password asks for a new one. The request
-- waits here, its password sealed (SECRET_KEY), while a
-- `root_password.set` job has the Fleet install it; when the Fleet has
-- done so the sealed password moves to `servers.root_secret` (shown once,
-- as after the install) and is cleared here. One open request per server.
create table root_password_resets (
    id text primary key,
    server_id text not null references servers (id),
    organization_id text not null,
    requested_by text not null references users (id),
    sealed_password text,
    state text not null check (state in ('queued', 'done', 'failed')),
    requested_at bigint not null,
    finished_at bigint
);
create index root_password_resets_server on root_password_resets (server_id, requested_at);
create unique index root_password_resets_open on root_password_resets (server_id)
    where state = 'queued';

-- The development Fleet's simulated disks: what each host has installed
-- (the image's name, the hostname written at install, the root password as
-- a salted hash like /etc/shadow's). It lives in the database, not in the
-- process, because the replica that serves a console is not always the one
-- whose worker installed the host, and a restart must not forget a disk.
-- A production Fleet keeps nothing here.
create table fleet_dev_disks (
    host text primary key,
    image text not null,
    hostname text not null,
    root_hash text,
    installed_at bigint not null
);
