-- Invitations to join an organization with a role.

create table invitations (
    id text primary key,
    organization_id text not null references organizations (id),
    email text not null,
    role text not null check (role in ('owner', 'technical', 'billing')),
    token_hash text not null unique,
    invited_by text not null references users (id),
    expires_at bigint not null,
    accepted_at bigint,
    revoked_at bigint,
    created_at bigint not null
);
create index invitations_by_org on invitations (organization_id, created_at);
