-- The hostname the installed system was given: the server's name when it
-- was (re)installed. A rename in the portal changes the name, not this;
-- the server page shows both and says so. Servers installed before this
-- column existed were installed with the name they have, unless renamed
-- since, which the events do not let us tell apart: their name stands.
alter table servers add column hostname text;
update servers set hostname = name where term_start is not null;
