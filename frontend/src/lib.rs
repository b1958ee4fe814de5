//! The browser entry point: hydrates the Leptos islands only (the live
//! quote, progress). Pages without an island load no script at all; the
//! loader is `public/islands.js`.

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    // The islands' exports live in `app`: this use links them in.
    #[allow(unused_imports)]
    use app::*;
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_islands();
}
