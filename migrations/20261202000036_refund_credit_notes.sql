-- A credit note that books a refund names the invoice it corrects, carries
-- the VAT given back beside its net amount (amount_cents stays ex VAT),
-- and the Stripe refund it books, so each refund is booked once whichever
-- of its events arrives first.
alter table credit_notes add column invoice_id text references invoices (id);
alter table credit_notes add column vat_cents bigint not null default 0;
alter table credit_notes add column stripe_refund_id text;
create unique index credit_notes_stripe_refund on credit_notes (stripe_refund_id);
