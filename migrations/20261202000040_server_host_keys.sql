-- The SSH host keys (OpenSSH public key lines, one per line) the installed
-- system reported, so customers can check the fingerprint their first ssh
-- login asks them to trust. Replaced by each install and rebuild.
alter table servers add column host_keys text;
