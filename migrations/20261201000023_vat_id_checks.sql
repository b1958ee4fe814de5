-- VAT IDs confirmed with VIES, the EU's register of VAT numbers. Reverse
-- charge needs 'valid'; 'invalid' (not registered) and 'unchecked' (VIES
-- has not answered yet; a vat_id_check job asks again) pay VAT. Null
-- without a VAT ID, or outside the EU where a tax number is only printed.
alter table billing_profiles add column vat_id_status text
    check (vat_id_status in ('valid', 'invalid', 'unchecked'));
-- When VIES last answered (not when it was last asked).
alter table billing_profiles add column vat_id_checked_at bigint;
-- The registered name, where the member state discloses it.
alter table billing_profiles add column vat_id_name text;

-- IDs saved before they were checked are asked about once the workers run;
-- until VIES confirms them they pay VAT like any unconfirmed ID.
update billing_profiles set vat_id_status = 'unchecked' where vat_id is not null;
insert into jobs (id, kind, subject_id, state, run_at, attempts, created_at, updated_at)
    select 'vat-id-check-' || organization_id, 'vat_id_check', organization_id, 'queued', 0, 0, 0, 0
    from billing_profiles where vat_id is not null;
