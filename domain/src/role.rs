//! A member's role in an organization (DESIGN §5): owners do everything,
//! technical members manage servers, billing members see money.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Technical,
    Billing,
}

crate::text_column!(Role, |v| v.as_str(), Role::parse);

impl Role {
    pub const ALL: [Role; 3] = [Role::Owner, Role::Technical, Role::Billing];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Technical => "technical",
            Role::Billing => "billing",
        }
    }

    pub fn parse(raw: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == raw)
    }

    /// Orders and manages servers.
    pub fn technical(self) -> bool {
        matches!(self, Role::Owner | Role::Technical)
    }

    /// Sees invoices and payments.
    pub fn money(self) -> bool {
        matches!(self, Role::Owner | Role::Billing)
    }
}

crate::named_enum! {
    /// What an API token may do.
    pub enum Scope {
        /// Servers, orders, snapshots and stock alerts: read (and stock
        /// alerts managed).
        Read = "read",
        /// Ordering, renaming, power, snapshots, cancellation, console tickets.
        ServersWrite = "servers:write",
        /// Invoices and credit notes.
        BillingRead = "billing:read",
    }
}
