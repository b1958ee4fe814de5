-- Billing: profiles, invoices with continuous numbers, credit notes, and
-- the servers' billing state; Stripe ids and processed webhook events.

create table billing_profiles (
    organization_id text primary key references organizations (id),
    legal_name text not null,
    address text not null,
    postal_code text not null,
    city text not null,
    country text not null check (length(country) = 2),
    -- Normalised with its prefix (DE123456789); null for consumers.
    vat_id text,
    billing_email text not null,
    updated_at bigint not null
);

-- The next number of each series. Taken with a conditional update in the
-- transaction that issues the document, so numbers have no gaps.
create table document_counters (
    series text primary key,
    next_number bigint not null
);

create table invoices (
    id text primary key,
    organization_id text not null references organizations (id),
    -- Continuous per series: INV-2026-000001. Drafts have none yet.
    number text unique,
    status text not null check (status in ('draft', 'open', 'paid', 'void', 'uncollectible')),
    currency text not null check (currency in ('EUR')),
    period_start bigint not null,
    period_end bigint not null,
    issued_at bigint not null,
    due_at bigint not null,
    paid_at bigint,
    subtotal_cents bigint not null,
    vat_treatment text not null check (vat_treatment in ('charged', 'reverse_charge', 'outside_eu')),
    vat_rate_bp bigint not null,
    vat_cents bigint not null,
    total_cents bigint not null,
    -- Credit notes set against this invoice, then what is left to pay.
    credit_cents bigint not null default 0,
    amount_due_cents bigint not null,
    -- The customer as they were when the invoice was issued.
    customer_name text not null,
    customer_address text not null,
    customer_country text not null,
    customer_vat_id text,
    billing_method text not null check (billing_method in ('invoice', 'stripe')),
    -- Bank transfer reference (offline) or Stripe's invoice id and pages.
    payment_reference text not null,
    stripe_invoice_id text unique,
    hosted_url text,
    pdf_url text,
    created_at bigint not null,
    updated_at bigint not null
);
create index invoices_by_organization on invoices (organization_id, issued_at);
create index invoices_by_status on invoices (status, due_at);

create table invoice_lines (
    id text primary key,
    invoice_id text not null references invoices (id),
    position bigint not null,
    server_id text,
    plan_id text,
    site_code text,
    -- What the line is: plan, addon:<id>, credit.
    kind text not null,
    description_zh text not null,
    description_en text not null,
    period_start bigint not null,
    period_end bigint not null,
    amount_cents bigint not null
);
create index invoice_lines_by_invoice on invoice_lines (invoice_id, position);

-- Money we owe a customer (refunds, SLA credits); set against their next
-- invoice. Numbered in their own series.
create table credit_notes (
    id text primary key,
    organization_id text not null references organizations (id),
    number text not null unique,
    reason text not null,
    amount_cents bigint not null check (amount_cents > 0),
    currency text not null check (currency in ('EUR')),
    remaining_cents bigint not null check (remaining_cents >= 0),
    server_id text,
    created_at bigint not null,
    created_by text not null
);
create index credit_notes_open on credit_notes (organization_id, remaining_cents);

-- A server's standing with billing: active, past_due (a payment failed),
-- suspended (grace period over: console and network off, data kept).
alter table servers add column billing_state text not null default 'active'
    check (billing_state in ('active', 'past_due', 'suspended'));
alter table servers add column past_due_since bigint;
alter table servers add column stripe_subscription_id text;

alter table organizations add column stripe_customer_id text;

-- Each Stripe webhook event is applied once: its id is recorded in the
-- transaction that applies it.
create table stripe_events (
    id text primary key,
    event_type text not null,
    created bigint not null,
    received_at bigint not null,
    processed_at bigint
);

-- The end of the last period invoiced for a server (offline billing).
alter table servers add column billed_until bigint;
