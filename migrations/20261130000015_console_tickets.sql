-- Console tickets (DESIGN §5): a browser asks for one over an authenticated
-- POST, then opens the console's WebSocket with it. A ticket lives 60 s, is
-- used once, and binds the user, their session and one server's console.
-- Stored (as a hash) in the database so any replica can redeem it.
create table console_tickets (
    token_hash text primary key,
    user_id text not null,
    session_id text not null,
    organization_id text not null,
    server_id text not null,
    kind text not null,
    created_at bigint not null,
    expires_at bigint not null,
    used_at bigint
);
create index console_tickets_expiry on console_tickets (expires_at);
