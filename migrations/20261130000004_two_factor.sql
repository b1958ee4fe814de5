-- Two-factor authentication (TOTP) and recovery codes; an organization may
-- require it of every member.

alter table users add column totp_secret text;
alter table users add column totp_enabled_at bigint;
-- The last 30-second step accepted, so a code cannot be used twice.
alter table users add column totp_last_step bigint;

create table recovery_codes (
    user_id text not null references users (id),
    code_hash text not null,
    used_at bigint,
    primary key (user_id, code_hash)
);
