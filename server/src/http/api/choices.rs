//! The fixed choices of the API as named schemas: a string field that takes
//! or gives one of a few words names one of these (`value_type`), so the
//! document lists the words (`enum`) and a client generator makes an enum.
//! Each list is read from the domain's own `ALL`, never copied, so a new
//! state is in the document the day it exists. Plans and sites are the
//! catalog's data, not a fixed list: they carry their pattern here and are
//! listed by `GET /plans` and `GET /sites`.

use domain::invoice::InvoiceStatus;
use domain::order::{CancelReason, OrderState};
use domain::server::SnapshotState;
use domain::server::{BillingState, ConsoleKind, ShownState, WindowState};
use domain::{Lang, OsImage};
use std::borrow::Cow;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};

/// A named string schema: the allowed words, or a pattern with lengths.
macro_rules! choice {
    ($(#[$meta:meta])* $name:ident, $description:literal, words: $words:expr) => {
        $(#[$meta])*
        pub struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                words($description, $words)
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
    ($(#[$meta:meta])* $name:ident, $description:literal, pattern: $pattern:literal, $min:literal..=$max:literal) => {
        $(#[$meta])*
        pub struct $name;

        impl PartialSchema for $name {
            fn schema() -> RefOr<Schema> {
                ObjectBuilder::new()
                    .schema_type(SchemaType::Type(Type::String))
                    .description(Some($description))
                    .pattern(Some($pattern))
                    .min_length(Some($min))
                    .max_length(Some($max))
                    .into()
            }
        }

        impl ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    };
}

fn words(description: &str, words: Vec<&'static str>) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .description(Some(description))
        .enum_values(Some(words))
        .into()
}

choice!(ServerStateChoice,
    "Where a server is: `pending` (paid, waiting for a host), `provisioning` (installing or reinstalling: see `step` and `progress`), `running`, `rebooting`, `restoring` (a snapshot is written back: `progress`), `maintenance` (a maintenance window is under way), `stopping` (powering off), `off` (powered off by the customer: still rented and billed), `starting` (powering on), `failed`",
    words: ShownState::ALL.iter().map(|s| s.as_str()).collect());
choice!(BillingStateChoice,
    "Where the server's payments stand: `active`; `past_due` (an invoice is overdue); `suspended` (unpaid past the grace period: public network and console cut, data kept, until the invoice is paid)",
    words: BillingState::ALL.iter().map(|s| s.as_str()).collect());
choice!(SnapshotStateChoice,
    "`creating`, `ready`, `restoring` (being written back to the server), `deleting` or `failed` (taking it failed; delete it)",
    words: SnapshotState::ALL.iter().map(|s| s.as_str()).collect());
choice!(OrderStateChoice,
    "`held` (a host is held while payment is awaited), `confirmed` (paid; the server is being set up), `fulfilled` (the server was handed over), `failed` (see `failure`), `expired` (not paid in time)",
    words: OrderState::ALL.iter().map(|s| s.as_str()).collect());
choice!(InvoiceStateChoice,
    "`open` (awaiting payment), `paid`, `void` (cancelled; nothing is owed) or `uncollectible`",
    words: InvoiceStatus::LISTED.iter().map(|s| s.as_str()).collect());
choice!(VatKindChoice,
    "How VAT applies: `charged` (the customer's EU rate), `reverse_charge` (an EU business with a confirmed VAT ID in another member state accounts for it) or `outside_eu` (none)",
    words: vec!["charged", "reverse_charge", "outside_eu"]);
choice!(WindowStateChoice,
    "A maintenance window: `proposed` (awaiting an answer), `accepted`, `declined` (another time was proposed), `started`, `done` or `withdrawn` (a newer proposal replaced it)",
    words: WindowState::ALL.iter().map(|s| s.as_str()).collect());
choice!(DeliveryStateChoice,
    "`pending` (to be tried, or tried again at `next_attempt_at`), `succeeded` (a 2xx answer) or `failed` (no 2xx after the last try)",
    words: backend::webhooks::DELIVERY_STATES.to_vec());
choice!(ImageChoice,
    "An operating system image: `GET /images` lists them",
    words: OsImage::ALL.iter().map(|i| i.as_str()).collect());
choice!(PowerActionChoice,
    "`reboot` (clean, through the operating system) or `power_cycle` (hard, through the BMC)",
    words: backend::fleet::PowerAction::ALL.iter().map(|a| a.as_str()).collect());
choice!(CancelReasonChoice,
    "Why the server is cancelled",
    words: CancelReason::ALL.iter().map(|r| r.as_str()).collect());
choice!(ConsoleKindChoice,
    "`serial` (text console) or `vnc` (the graphical screen)",
    words: ConsoleKind::ALL.iter().map(|k| k.as_str()).collect());
choice!(LangChoice,
    "A language: `zh` or `en`",
    words: Lang::ALL.iter().map(|l| l.code()).collect());
choice!(PlanChoice,
    "A plan id as `GET /plans` lists them (`g-l40s`)",
    pattern: "^[a-z0-9-]{1,32}$", 1..=32);
choice!(SiteChoice,
    "A site code as `GET /sites` lists them (`fra`)",
    pattern: "^[a-z]{3}$", 3..=3);
choice!(ServerNameChoice,
    "1–63 letters, digits and hyphens, not starting or ending with a hyphen; kept in lower case (it is the hostname)",
    pattern: "^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$", 1..=63);
choice!(SnapshotNameChoice,
    "1–63 letters, digits, `-`, `.` or `_`; unique per server",
    pattern: "^[A-Za-z0-9._-]{1,63}$", 1..=63);
