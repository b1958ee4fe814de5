//! Ids of the things a customer owns, one type each, so that passing a
//! server's id where the organization's belongs does not compile (every
//! authorization query takes both).
//!
//! An id is opaque: the backend makes them (`uuid` v7) and the database
//! stores them as text. One from a URL is not validated here: a lookup that
//! finds nothing answers 404, the same as an id of another organization.
//!
//! With the `sqlx` feature (the backend's) an id binds and decodes as the
//! text column it is.

/// Declares each id as a `String` newtype, sent as a plain string by serde.
macro_rules! ids {
    ($( $(#[$meta:meta])* $name:ident, )+) => {$(
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[derive(serde::Serialize, serde::Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl From<String> for $name {
            fn from(raw: String) -> Self {
                $name(raw)
            }
        }

        impl From<&str> for $name {
            fn from(raw: &str) -> Self {
                $name(raw.to_owned())
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }
    )+};
}

ids! {
    /// A customer: the owner of servers, orders and invoices.
    OrganizationId,
    /// A rented server (not the physical host it runs on).
    ServerId,
    /// A person who signs in (customer or staff).
    UserId,
    /// An order placed for a server.
    OrderId,
    /// One of our invoices (not Stripe's).
    InvoiceId,
    /// A physical machine in a site's inventory.
    HostId,
    /// A snapshot of a server's disk.
    SnapshotId,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_sent_as_its_string() {
        let id = ServerId::from("0190-abc");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"0190-abc\"");
        let back: ServerId = serde_json::from_str("\"0190-abc\"").unwrap();
        assert_eq!(back, id);
        assert_eq!(id.to_string(), "0190-abc");
    }
}
