-- Cancelling a server at the end of a term. `cancel_at` is the chosen term
-- end (revocable until then); `cancelled_at` marks the contract as ended:
-- the server is wiped, leaves the list, and its invoices and trail remain.
alter table servers add column cancel_at bigint;
alter table servers add column cancel_reason text;
alter table servers add column cancelled_at bigint;
