-- Ordering, provisioning and servers: add-ons, VAT rates, SSH keys, orders,
-- servers and their events, the durable job queue, back-in-stock alerts.

-- Add-ons the storefront names. The seed page gives no price, so these are
-- the business's list prices (docs/ARCHITECTURE.md, "Add-on prices").
create table addons (
    id text primary key,
    position bigint not null,
    name_zh text not null,
    name_en text not null,
    description_zh text not null,
    description_en text not null
);

create table addon_prices (
    addon_id text not null references addons (id),
    plan_id text not null references plans (id),
    monthly_price_cents bigint not null check (monthly_price_cents >= 0),
    currency text not null check (currency in ('EUR')),
    primary key (addon_id, plan_id)
);

insert into addons (id, position, name_zh, name_en, description_zh, description_en) values
    ('offsite-backup', 1, '节点外每晚备份', 'Off-site nightly backup',
     '每晚把本地 NVMe 的增量备份写入另一个城市的机房，保留 14 天。',
     'Every night, an incremental copy of the local NVMe goes to a site in another city; 14 days are kept.'),
    ('os-hardening', 2, '操作系统加固基线', 'OS hardening baseline',
     '交付时应用 CIS 一级操作系统基线（SSH 仅密钥、防火墙、自动安全更新）。只覆盖操作系统，不涉及驱动和框架。',
     'The CIS level 1 baseline applied at delivery (key-only SSH, firewall, unattended security updates). The operating system only: not drivers or frameworks.');

-- Backup is priced by the size of the disks it copies; hardening is flat.
insert into addon_prices (addon_id, plan_id, monthly_price_cents, currency) values
    ('offsite-backup', 'g-ada', 1500, 'EUR'),
    ('offsite-backup', 'g-l40s', 3000, 'EUR'),
    ('offsite-backup', 'g-l40s-x2', 6000, 'EUR'),
    ('os-hardening', 'g-ada', 1900, 'EUR'),
    ('os-hardening', 'g-l40s', 1900, 'EUR'),
    ('os-hardening', 'g-l40s-x2', 1900, 'EUR');

-- Standard VAT rates of the EU member states, in basis points, from a date.
-- A rate change is a new row; an invoice uses the row in force on its date.
create table vat_rates (
    country_code text not null check (length(country_code) = 2),
    effective_from bigint not null,
    rate_bp bigint not null check (rate_bp >= 0 and rate_bp < 10000),
    primary key (country_code, effective_from)
);

insert into vat_rates (country_code, effective_from, rate_bp) values
    ('AT', 0, 2000), ('BE', 0, 2100), ('BG', 0, 2000), ('HR', 0, 2500),
    ('CY', 0, 1900), ('CZ', 0, 2100), ('DK', 0, 2500), ('EE', 0, 2200),
    ('EE', 1751328000, 2400), ('FI', 0, 2400), ('FI', 1725148800, 2550),
    ('FR', 0, 2000), ('DE', 0, 1900), ('GR', 0, 2400), ('HU', 0, 2700),
    ('IE', 0, 2300), ('IT', 0, 2200), ('LV', 0, 2100), ('LT', 0, 2100),
    ('LU', 0, 1700), ('MT', 0, 1800), ('NL', 0, 2100), ('PL', 0, 2300),
    ('PT', 0, 2300), ('RO', 0, 1900), ('RO', 1754006400, 2100), ('SK', 0, 2000),
    ('SK', 1735689600, 2300), ('SI', 0, 2200), ('ES', 0, 2100), ('SE', 0, 2500);

-- Where the organization is billed; prices on the order summary follow it.
alter table organizations add column billing_country text;

create table ssh_keys (
    id text primary key,
    user_id text not null references users (id),
    name text not null,
    public_key text not null,
    fingerprint text not null,
    created_at bigint not null,
    unique (user_id, fingerprint)
);

-- One order buys one server. Amounts are frozen at placement.
create table orders (
    id text primary key,
    organization_id text not null references organizations (id),
    user_id text not null references users (id),
    -- The key the order form carries: a retried or doubled submit finds
    -- the order it already made instead of making another.
    idempotency_key text not null,
    plan_id text not null references plans (id),
    site_code text not null references sites (code),
    server_name text not null,
    os_image text not null check (os_image in ('ubuntu-24.04', 'debian-13', 'rocky-9', 'rescue')),
    addons text not null,
    ssh_keys text not null,
    billing_method text not null check (billing_method in ('invoice', 'stripe')),
    billing_country text not null,
    plan_cents bigint not null,
    addons_cents bigint not null,
    vat_rate_bp bigint not null,
    vat_cents bigint not null,
    total_cents bigint not null,
    currency text not null check (currency in ('EUR')),
    state text not null check (state in ('held', 'confirmed', 'fulfilled', 'failed', 'expired')),
    hold_expires_at bigint,
    server_id text,
    failure text,
    created_at bigint not null,
    updated_at bigint not null,
    unique (organization_id, idempotency_key)
);
create index orders_by_organization on orders (organization_id, created_at);
create index orders_by_state on orders (state, hold_expires_at);

-- The order a host is held or allocated for.
alter table hosts add column order_id text;

create table servers (
    id text primary key,
    organization_id text not null references organizations (id),
    order_id text not null references orders (id),
    name text not null,
    plan_id text not null references plans (id),
    site_code text not null references sites (code),
    host_id text references hosts (id),
    state text not null check (state in ('pending', 'provisioning', 'running', 'rebooting', 'failed')),
    progress bigint not null default 0 check (progress between 0 and 100),
    step text not null default '',
    os_image text not null,
    addons text not null,
    ssh_keys text not null,
    ipv4 text,
    ipv6 text,
    -- Sealed root password for servers ordered without SSH keys; cleared
    -- when the customer has seen it once.
    root_secret text,
    term_start bigint,
    renews_at bigint,
    attempts bigint not null default 0,
    created_at bigint not null,
    updated_at bigint not null
);
create index servers_by_organization on servers (organization_id, created_at);

create table server_events (
    id text primary key,
    server_id text not null references servers (id),
    at bigint not null,
    kind text not null,
    detail text not null
);
create index server_events_by_server on server_events (server_id, at);

-- The durable job queue. A worker leases a job; a lease that runs out
-- (the worker died) lets any replica take the job up again.
create table jobs (
    id text primary key,
    kind text not null,
    subject_id text not null,
    state text not null check (state in ('queued', 'done', 'dead')),
    run_at bigint not null,
    attempts bigint not null default 0,
    lease_owner text,
    lease_until bigint,
    last_error text,
    created_at bigint not null,
    updated_at bigint not null
);
create index jobs_due on jobs (state, run_at);

create table stock_alerts (
    id text primary key,
    email text not null,
    lang text not null check (lang in ('zh', 'en')),
    plan_id text not null references plans (id),
    site_code text not null references sites (code),
    token_hash text not null unique,
    user_id text,
    created_at bigint not null,
    closed_at bigint,
    close_reason text check (close_reason in ('notified', 'unsubscribed'))
);
create index stock_alerts_open on stock_alerts (plan_id, site_code, closed_at);
-- One open alert per address and combination.
create unique index stock_alerts_one_open on stock_alerts (email, plan_id, site_code) where closed_at is null;
