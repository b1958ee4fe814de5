-- A counter bumped in the same transaction as every stock or latency
-- change. PostgreSQL replicas read it on each storefront request, so a
-- change committed anywhere shows on the next request (LISTEN/NOTIFY
-- arrives asynchronously and lost that race under load).

create table storefront_version (
    id bigint primary key check (id = 1),
    version bigint not null
);
insert into storefront_version (id, version) values (1, 0);
