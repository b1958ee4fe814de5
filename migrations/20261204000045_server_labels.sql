-- Labels on servers (`env=prod`): set through the API, filtered by in
-- lists (`?label=env=prod`). The key is unique per server.
create table server_labels (
    server_id text not null references servers (id),
    key text not null,
    value text not null,
    primary key (server_id, key)
);
create index server_labels_key_value on server_labels (key, value);
