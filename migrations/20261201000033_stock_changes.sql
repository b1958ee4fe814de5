-- What the public was told about stock, as it changed (issue 14: the stock
-- feed, /api/v1/stock/feed.atom). One row each time a plan at a site moves
-- to another level or band; the worker records them. `seq` numbers the
-- rows of one plan × site: a row takes the previous `seq` + 1, so when two
-- replicas' workers see the same change, the unique key keeps one row.
-- Bands, never exact counts above two: 0, 1, 2, 3-9, 10+.
create table stock_changes (
    id text primary key,
    plan_id text not null references plans (id),
    site_code text not null references sites (code),
    seq bigint not null check (seq > 0),
    level text not null check (level in ('in_stock', 'few', 'sold_out')),
    band text not null check (band in ('0', '1', '2', '3-9', '10+')),
    changed_at bigint not null,
    unique (plan_id, site_code, seq)
);
create index stock_changes_by_combination on stock_changes (plan_id, site_code, changed_at);
-- The unfiltered feed: newest first.
create index stock_changes_by_time on stock_changes (changed_at);
