//! The Leptos application: pages and components, rendered on the
//! server (`ssr`). Only islands (the live quotes, server progress) hydrate
//! in the browser; every page works without JavaScript, and storefront
//! pages other than configure load no script at all.

pub mod context;
pub mod i18n;
pub mod page;
pub mod portal;
pub mod quote_error;
pub mod shell;
pub mod storefront;

pub use page::{PageBody, PageView};
pub use shell::shell;
