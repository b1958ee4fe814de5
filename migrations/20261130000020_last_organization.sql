-- Where a member of several organizations lands after signing in: the one
-- they last chose or joined by invitation, not always the first they had
-- (an engineer invited into a company signed up with an empty one of
-- their own and had to switch on every sign-in).
alter table users add column last_organization_id text;
