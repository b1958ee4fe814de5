-- Wrong second-factor codes are counted apart from wrong passwords: a right
-- password must not buy free code guesses (the password step used to clear
-- the one shared count).
alter table login_failures add column factor text not null default 'password'
    check (factor in ('password', 'code'));
create index login_failures_by_factor on login_failures (email, factor, at);
