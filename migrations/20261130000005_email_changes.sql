-- Changing the email address: the new address is confirmed by a link sent
-- to it before it replaces the old one.

create table email_changes (
    token_hash text primary key,
    user_id text not null references users (id),
    new_email text not null,
    expires_at bigint not null,
    used_at bigint,
    created_at bigint not null
);
