-- Development only: how far the application's clock runs ahead of the
-- system clock, set with `server clock advance` so a demo or a browser
-- test can reach a term end without waiting a month. Production ignores it.
create table clock_offset (
    id bigint primary key check (id = 1),
    seconds bigint not null
);
