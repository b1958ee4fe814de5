-- API requests per token per fixed window (issue 14): one upserted row per
-- token and minute, so each request costs one statement and every replica
-- counts the same requests.
create table api_rate_windows (
    key text not null,
    window_start bigint not null,
    hits bigint not null check (hits > 0),
    primary key (key, window_start)
);
