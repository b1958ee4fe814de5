// The out-of-band console page. Asks the portal for a console ticket (a
// same-origin POST with the session cookie), then opens the tunnel's
// WebSocket with it: xterm.js for the serial console, noVNC for the
// graphical one. A ticket is good for one opening within 60 s, so every
// (re)connection asks for a new one. All words come from the page.
const root = document.getElementById("console");
if (root) start(root);

function start(root) {
  const kind = root.dataset.kind;
  const status = document.getElementById("console-status");
  const reconnect = document.getElementById("console-reconnect");
  const paste = document.getElementById("console-paste");
  const cad = document.getElementById("console-cad");
  let current = null;

  function setStatus(text, state) {
    status.textContent = text;
    status.dataset.state = state;
  }

  // The portal closes a tunnel with a code (signed-out, suspended, …);
  // the page carries what each means in its language.
  const reasons = JSON.parse(root.dataset.reasons || "{}");

  function closed(code) {
    current = null;
    setStatus(reasons[code] || root.dataset.closed, "closed");
    reconnect.hidden = false;
  }

  // A ticket made through the API arrives in the address's fragment (never
  // sent to a server or a log): it opens the first connection, once.
  let handed = new URLSearchParams(location.hash.slice(1)).get("ticket");
  if (handed) history.replaceState(null, "", location.pathname + location.search);

  async function tunnelUrl() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    if (handed) {
      const ticket = handed;
      handed = null;
      return scheme + "//" + location.host + location.pathname + "/ws?ticket=" + encodeURIComponent(ticket);
    }
    const response = await fetch(root.dataset.ticketUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      // Same-origin is proven by the browser's Origin and Sec-Fetch-Site.
      body: new URLSearchParams(),
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok || !body.url) throw new Error(body.error || root.dataset.refused);
    return scheme + "//" + location.host + body.url;
  }

  async function connect() {
    reconnect.hidden = true;
    if (current) current.close();
    setStatus(root.dataset.connecting, "connecting");
    let url;
    try {
      url = await tunnelUrl();
    } catch (error) {
      setStatus(error.message, "refused");
      reconnect.hidden = false;
      return;
    }
    current = kind === "serial" ? openSerial(url) : await openGraphical(url);
  }

  // Serial: bytes both ways between the WebSocket and the terminal.
  let terminal = null;
  let serialSocket = null;
  const encoder = new TextEncoder();
  function openSerial(url) {
    if (!terminal) {
      terminal = new window.Terminal({ convertEol: false, cursorBlink: true, scrollback: 5000 });
      const fit = new window.FitAddon.FitAddon();
      terminal.loadAddon(fit);
      terminal.open(root);
      fit.fit();
      window.addEventListener("resize", () => fit.fit());
      terminal.onData((data) => {
        if (serialSocket && serialSocket.readyState === WebSocket.OPEN) {
          serialSocket.send(encoder.encode(data));
        }
      });
    } else {
      // A reconnection starts a fresh screen: what the last one showed
      // (a half-typed password prompt, say) is not the server's now.
      terminal.reset();
    }
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      setStatus(root.dataset.connected, "connected");
      terminal.focus();
    };
    socket.onmessage = (event) => terminal.write(new Uint8Array(event.data));
    socket.onclose = (event) => {
      if (serialSocket === socket) closed(event.reason);
    };
    serialSocket = socket;
    return {
      close: () => { serialSocket = null; socket.close(); },
      paste: (text) => terminal.paste(text),
    };
  }

  // Graphical: noVNC speaks RFB over the same kind of tunnel.
  async function openGraphical(url) {
    const { default: RFB } = await import("/vendor/novnc/core/rfb.js");
    const { default: keysyms } = await import("/vendor/novnc/core/input/keysymdef.js");
    root.replaceChildren();
    const rfb = new RFB(root, url);
    rfb.scaleViewport = true;
    rfb.focusOnClick = true;
    let open = true;
    rfb.addEventListener("connect", () => {
      setStatus(root.dataset.connected, "connected");
      rfb.focus();
    });
    rfb.addEventListener("disconnect", () => {
      if (open) closed("");
      open = false;
    });
    return {
      close: () => { open = false; rfb.disconnect(); },
      ctrlAltDel: () => rfb.sendCtrlAltDel(),
      // Typed key by key: a screen has no clipboard of its own.
      paste: (text) => {
        for (const ch of text) {
          const keysym = ch === "\n" ? 0xff0d : keysyms.lookup(ch.codePointAt(0));
          if (ch !== "\r") rfb.sendKey(keysym);
        }
      },
    };
  }

  reconnect.addEventListener("click", connect);
  paste.addEventListener("click", async () => {
    if (!current) return;
    try {
      current.paste(await navigator.clipboard.readText());
    } catch (_) {
      setStatus(root.dataset.pasteDenied, status.dataset.state);
    }
  });
  if (cad) cad.addEventListener("click", () => current && current.ctrlAltDel());
  connect();
}
