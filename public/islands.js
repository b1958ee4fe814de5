// Hydrates the page's Leptos islands (the live quote, progress). A file of
// its own rather than Leptos' inline loader: the CSP allows no inline
// script, and pages are cached, so they can't carry a per-response nonce.
import init, * as bundle from "/pkg/gpu-storefront.js";

await init({ module_or_path: "/pkg/gpu-storefront.wasm" });
bundle.hydrate();
for (const island of document.querySelectorAll("leptos-island")) {
  const hydrate = bundle[island.dataset.component];
  if (hydrate) {
    await hydrate(island);
  }
}
