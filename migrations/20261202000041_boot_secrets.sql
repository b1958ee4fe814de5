-- One secret per purpose for a boot (issue 27). `token_hash` now names the
-- media token: the boot media URL the BMC is given (and logs) reads the
-- media and nothing else. The seed is fetched once, with a second secret
-- written into the media's seed area (only its hash here; sealed for
-- serving the media), and only after the boot was proven: the host seen
-- Off, then On with our media inserted (`proven_at`). Reports are signed
-- with a key delivered inside the seed (in `sealed_seed`). Boots running
-- when this migration lands have none of these and end at their deadline.
alter table fleet_boots add column seed_secret_hash text;
alter table fleet_boots add column sealed_seed_secret text;
alter table fleet_boots add column proven_at bigint;
alter table fleet_boots add column seed_fetched_at bigint;
