// Follows a server that is installing or restarting: reads its progress
// every two seconds and updates the page in place. Without JavaScript the
// page is still right after a reload; this only saves the reload.
(function () {
  "use strict";
  var live = document.getElementById("server-live");
  var url = live && live.getAttribute("data-progress-url");
  if (!url) return;
  function set(name, text) {
    var el = live.parentNode.querySelector('[data-live="' + name + '"]');
    if (el && text != null) el.textContent = text;
  }
  function poll() {
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (s) {
        set("state", s.state_label);
        set("step", s.step_label);
        set("percent", s.progress + "%");
        var bar = live.querySelector('[data-live="progress"]');
        if (bar) { bar.value = s.progress; bar.textContent = s.progress + "%"; }
        if (s.ipv4) set("ipv4", s.ipv4);
        if (s.ipv6) set("ipv6", s.ipv6);
        var badge = live.querySelector('[data-live="state"]');
        if (badge) badge.className = "state-badge state-" + s.state;
        live.setAttribute("data-state", s.state);
        // Finished: load the page once more for what only it shows
        // (power actions, the root password button, the events).
        if (s.done) { window.location.reload(); return; }
        setTimeout(poll, 2000);
      })
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 1000);
})();
