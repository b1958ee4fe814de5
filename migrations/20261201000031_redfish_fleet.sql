-- The production Fleet drives each host's baseboard management controller
-- (BMC) over Redfish. A host racked for it carries its BMC here: the
-- Redfish service's base URL, a user, the password sealed under SECRET_KEY
-- (like TOTP keys), whether the BMC's TLS certificate is checked against
-- the CA bundle (an operator may accept a self-signed BMC, per host, and
-- the staff pages say so), and how its serial console is reached.
-- `system_path` and the hardware facts are what the last check read.
create table host_bmcs (
    host_id text primary key references hosts (id),
    url text not null,
    username text not null,
    sealed_password text not null,
    tls_verify bigint not null check (tls_verify in (0, 1)),
    serial_console text not null check (serial_console in ('ipmi', 'ssh')),
    serial_command text not null,
    vnc_port bigint not null check (vnc_port between 1 and 65535),
    system_path text,
    model text,
    serial_number text,
    bios_version text,
    power_state text,
    gpus text,
    checked_at bigint,
    check_error text,
    created_at bigint not null,
    updated_at bigint not null
);

-- An installer or a wipe image booted from virtual media we serve. The
-- image finds its seed and reports back through a URL holding a random
-- token (only its hash is kept): per host and boot, valid until
-- `deadline`, and spent by the final report. The seed (hostname, SSH
-- keys, root password) is sealed, and reaches the installer this way,
-- never through the BMC.
create table fleet_boots (
    id text primary key,
    host_id text not null references hosts (id),
    purpose text not null check (purpose in ('install', 'wipe')),
    -- For an install: the server and host it is for (`ProvisionSpec`).
    install_key text,
    image text not null,
    token_hash text not null unique,
    sealed_seed text not null,
    phase text not null check (phase in ('booting', 'started', 'imaged', 'network', 'keys', 'done', 'failed')),
    ipv4 text,
    ipv6 text,
    host_keys text,
    message text,
    started_at bigint not null,
    deadline bigint not null,
    reported_at bigint,
    finished_at bigint
);
create index fleet_boots_by_host on fleet_boots (host_id, started_at);
create unique index fleet_boots_running on fleet_boots (host_id) where finished_at is null;

-- What BMCs report, sampled by the Redfish Fleet: per reading and card,
-- GPU temperature and clock, and the host's corrected error count from
-- its event log; the telemetry charts and Fleet health read these.
create table host_readings (
    host_id text not null references hosts (id),
    at bigint not null,
    card bigint not null,
    gpu_temp_c bigint not null,
    sm_clock_mhz bigint not null,
    ecc_corrected bigint not null,
    ecc_uncorrected bigint not null,
    power_watts bigint not null,
    primary key (host_id, at, card)
);

-- A report from a booted image wakes the job waiting on its host. The job
-- may be running at that moment (and about to schedule its next look), so
-- the wake-up is a flag its end reads, not only an earlier run time.
alter table jobs add column woken bigint not null default 0;
