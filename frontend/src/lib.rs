//! The browser entry point. Storefront pages ship no script; portal pages
//! will load this bundle to hydrate their interactive parts.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
