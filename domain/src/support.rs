//! A support request's category and whose turn it is.

use crate::Role;

crate::named_enum! {
    pub enum Category {
        Scaling = "scaling",
        Hardware = "hardware",
        Billing = "billing",
        Account = "account",
        Other = "other",
    }
}

impl Category {
    /// Servers are the technical members' business, money the billing
    /// members'; the account and anything else concern everyone.
    pub fn visible_to(self, role: Role) -> bool {
        match self {
            Category::Scaling | Category::Hardware => role.technical(),
            Category::Billing => role.money(),
            Category::Account | Category::Other => true,
        }
    }
}

crate::named_enum! {
    pub enum State {
        /// New: staff's turn.
        Open = "open",
        /// Staff answered: the customer's turn ("waiting for you").
        Waiting = "waiting",
        /// The customer answered: staff's turn again.
        Answered = "answered",
        Closed = "closed",
    }
}

impl State {
    /// After a customer's reply: staff's turn. A closed request takes no
    /// reply (it is reopened first).
    pub fn after_customer_reply(self) -> Option<State> {
        match self {
            State::Open => Some(State::Open),
            State::Waiting | State::Answered => Some(State::Answered),
            State::Closed => None,
        }
    }

    /// After a staff reply: the customer's turn.
    pub fn after_staff_reply(self) -> Option<State> {
        match self {
            State::Closed => None,
            _ => Some(State::Waiting),
        }
    }
}

crate::named_enum! {
    /// Who wrote a message of a support request.
    pub enum AuthorKind {
        Customer = "customer",
        Staff = "staff",
        /// Written by the product itself (a fact collected, a reminder).
        System = "system",
    }
}
