// The snapshots tab while a snapshot is being taken, restored or deleted:
// asks the portal for the snapshots' states every two seconds and updates
// their rows in place (state and size, in the page's language: the portal
// sends the words). Once none is busy any more, the page reloads once, so
// its forms (restore, delete, take) match the states. Without this script
// the page says the same after a reload.
(function () {
  "use strict";
  const table = document.querySelector("table[data-progress-url]");
  if (!table) return;
  const url = table.getAttribute("data-progress-url");
  let failures = 0;
  async function poll() {
    let body;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (!response.ok) throw new Error(String(response.status));
      body = await response.json();
      failures = 0;
    } catch (error) {
      // The portal is restarting or the network is away: try a few more
      // times, then leave the page as it is.
      if (++failures < 10) setTimeout(poll, 4000);
      return;
    }
    for (const snapshot of body.snapshots) {
      const row = table.querySelector(`tr[data-snapshot-id="${CSS.escape(snapshot.id)}"]`);
      if (!row) continue;
      row.setAttribute("data-state", snapshot.state);
      const state = row.querySelector('[data-live="state"]');
      if (state) state.textContent = snapshot.state_label;
      const size = row.querySelector('[data-live="size"]');
      if (size) size.textContent = snapshot.size;
    }
    if (body.snapshots.some((s) => s.busy)) {
      setTimeout(poll, 2000);
    } else {
      location.reload();
    }
  }
  setTimeout(poll, 2000);
})();
