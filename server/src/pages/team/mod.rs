//! The organization's people: members and their roles, invitations, and the
//! audit log of what each of them did.

pub mod audit;
pub mod invitations;
pub mod members;
