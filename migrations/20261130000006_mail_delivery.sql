-- The outbox doubles as a durable delivery queue: with SMTP configured, a
-- worker in any replica claims unsent messages, sends them and records the
-- outcome; without it (development) messages stay here for staff to read.

alter table mail_outbox add column sent_at bigint;
alter table mail_outbox add column claimed_until bigint;
alter table mail_outbox add column attempts bigint not null default 0;
alter table mail_outbox add column last_error text;
