//! The portal's pages, one folder per part of the portal. A page's file
//! holds its route handlers, the view they build and the component that
//! shows it, so a page changes in one place. What the browser also runs
//! (the islands, the shell, the i18n tables, shared form parts) stays in
//! the `app` crate, which the wasm build compiles.

pub mod account;
pub mod alerts;
pub mod billing;
pub mod finance;
pub mod orders;
pub mod servers;
pub mod staff;
pub mod support;
pub mod team;
