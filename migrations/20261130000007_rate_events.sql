-- Requests that cost something (mail sent on a stranger's behalf), counted
-- per key (client address, recipient) for rate limits shared by replicas.

create table rate_events (
    id text primary key,
    key text not null,
    at bigint not null
);
create index rate_events_by_key on rate_events (key, at);
