-- Events the server's team hears about by mail without asking (hardware
-- faults, rebuilds, maintenance) are recorded unmailed; housekeeping on any
-- replica claims each once and queues its mail. Everything before this
-- migration counts as mailed, so deploying it sends nothing old.
alter table server_events add column mailed bigint not null default 1 check (mailed in (0, 1));
create index server_events_unmailed on server_events (at) where mailed = 0;
