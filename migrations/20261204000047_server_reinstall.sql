-- A reinstall the customer asked for (another image, or the same one, on
-- the server's own host): set until the install finishes, so the
-- provisioning job makes a new root password and records `reinstalled`
-- rather than treating it as a rebuild after a host failure (which keeps
-- the volumes and their password).
alter table servers add column reinstall_requested_at bigint;
