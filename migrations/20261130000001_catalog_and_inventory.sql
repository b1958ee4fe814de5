-- Catalog (plans, sites), inventory (hosts) and probe latency.
-- Portable between SQLite and PostgreSQL: TEXT and BIGINT only, money in
-- integer cents with a currency code, times as unix seconds (UTC), ids made
-- by the application, states as TEXT with CHECK constraints.

create table plans (
    id text primary key,
    name text not null unique,
    position bigint not null,
    tagline_zh text not null,
    tagline_en text not null,
    dedicated_cores bigint not null check (dedicated_cores > 0),
    memory_gb bigint not null check (memory_gb > 0),
    nvme_tb bigint not null check (nvme_tb > 0),
    gpu_model text not null,
    gpu_count bigint not null check (gpu_count > 0),
    vram_gb_per_card bigint not null check (vram_gb_per_card > 0),
    port_gbit bigint not null check (port_gbit > 0),
    monthly_price_cents bigint not null check (monthly_price_cents >= 0),
    currency text not null check (currency in ('EUR')),
    most_popular bigint not null default 0 check (most_popular in (0, 1))
);

create table sites (
    code text primary key check (length(code) = 3),
    position bigint not null,
    city_zh text not null,
    city_en text not null,
    country_code text not null check (length(country_code) = 2),
    country_zh text not null,
    country_en text not null,
    note_zh text not null,
    note_en text not null,
    typical_use_zh text not null,
    typical_use_en text not null,
    lat_e6 bigint not null,
    lon_e6 bigint not null
);

-- One row per physical machine. Stock is the count of free hosts; a hold
-- whose time has passed counts as free until the sweeper returns it.
create table hosts (
    id text primary key,
    name text not null unique,
    site_code text not null references sites (code),
    plan_id text not null references plans (id),
    state text not null check (state in ('free', 'held', 'allocated', 'wiping', 'maintenance', 'failed')),
    hold_expires_at bigint,
    created_at bigint not null,
    updated_at bigint not null,
    check ((state = 'held') = (hold_expires_at is not null))
);
create index hosts_stock on hosts (site_code, plan_id, state);

-- Every state change of a host, who made it and why: the operators' trail.
create table host_events (
    id text primary key,
    host_id text not null references hosts (id),
    from_state text,
    to_state text not null,
    actor text not null,
    reason text not null,
    at bigint not null
);
create index host_events_by_host on host_events (host_id, at);

-- Median round trips measured by our probes, imported by an operator.
create table latency_measurements (
    city text not null,
    country_code text not null,
    site_code text not null references sites (code),
    median_tenth_ms bigint not null check (median_tenth_ms > 0),
    measured_at bigint not null,
    imported_at bigint not null,
    primary key (city, site_code)
);

insert into plans (id, name, position, tagline_zh, tagline_en, dedicated_cores, memory_gb, nvme_tb,
                   gpu_model, gpu_count, vram_gb_per_card, port_gbit, monthly_price_cents, currency, most_popular)
values
    ('g-ada', 'G-ADA', 1, '推理与轻量训练', 'Inference and light training', 8, 64, 1,
     'RTX 4000 Ada', 1, 20, 40, 23900, 'EUR', 0),
    ('g-l40s', 'G-L40S', 2, '48 GB 显存，完整不切分', '48 GB of VRAM, undivided', 16, 128, 2,
     'L40S', 1, 48, 40, 74900, 'EUR', 1),
    ('g-l40s-x2', 'G-L40S×2', 3, '两张卡，同一 NUMA 节点', 'Two cards, one NUMA node', 32, 256, 4,
     'L40S', 2, 48, 40, 142000, 'EUR', 0);

insert into sites (code, position, city_zh, city_en, country_code, country_zh, country_en,
                   note_zh, note_en, typical_use_zh, typical_use_en, lat_e6, lon_e6)
values
    ('ams', 1, '阿姆斯特丹', 'Amsterdam', 'NL', '荷兰', 'Netherlands',
     '整个基础设施中最密集的站点，所有东西都先运到这里',
     'Our densest site; everything lands here first',
     '欧洲推理，对欧洲大陆大部分地区延迟低',
     'European inference with low latency to most of the continent',
     52370216, 4895168),
    ('fra', 2, '法兰克福', 'Frankfurt', 'DE', '德国', 'Germany',
     '最繁忙的GPU机房，最先收到新显卡',
     'Our busiest GPU floor; new cards arrive here first',
     '训练和微调，容量比最后几毫秒更重要',
     'Training and fine-tuning, where capacity matters more than the last few milliseconds',
     50110922, 8682127),
    ('lon', 3, '伦敦', 'London', 'GB', '英国', 'United Kingdom',
     '欧洲跨大西洋延迟最低',
     'The lowest transatlantic latency in Europe',
     '从一个地方服务于大西洋两岸的用户',
     'Serving users on both sides of the Atlantic from one place',
     51507351, -127758),
    ('nyc', 4, '纽约', 'New York', 'US', '美国', 'United States',
     '东海岸枢纽，全产品线',
     'East Coast hub with the full line',
     '北美推理',
     'North American inference',
     40712776, -74005974),
    ('dal', 5, '达拉斯', 'Dallas', 'US', '美国', 'United States',
     '电力便宜，机房面积大，容量最易获得',
     'Cheap power and big floors: capacity is easiest to get here',
     '长时批处理任务和任何对价格敏感的任务',
     'Long batch jobs and anything price-sensitive',
     32776664, -96796988),
    ('lax', 6, '洛杉矶', 'Los Angeles', 'US', '美国', 'United States',
     '亚洲以外我们最好的西行线路',
     'Our best westbound routes outside Asia',
     '从北美服务环太平洋地区',
     'Serving the Pacific Rim from North America',
     34052235, -118243683),
    ('sin', 7, '新加坡', 'Singapore', 'SG', '新加坡', 'Singapore',
     '东南亚的默认选择',
     'The default choice for Southeast Asia',
     '区域推理',
     'Regional inference',
     1352083, 103819836),
    ('tyo', 8, '东京', 'Tokyo', 'JP', '日本', 'Japan',
     '该地区最稳定的往返时间',
     'The steadiest round-trip times in the region',
     '对延迟敏感的日本和韩国流量',
     'Latency-sensitive traffic for Japan and Korea',
     35676192, 139650311);
