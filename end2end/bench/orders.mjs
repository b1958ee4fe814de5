// Orders under contention: U users race N order POSTs, C at a time, for one
// plan×site that has exactly K free hosts. Every order must either get a
// server (303 to /servers/…) or a clean "sold out" (409), and exactly K may
// succeed. Run by scripts/bench-orders.sh; plain Node (built-in fetch).
//
// Env: BASE_URL, SERVER_BIN + DATABASE_URL (to read the confirmation mail),
//      USERS=4 ORDERS=400 CONCURRENCY=32 HOSTS=50 PLAN=g-l40s-x2 SITE=lax
import { execFileSync } from 'node:child_process';

const env = (name, fallback) => process.env[name] ?? fallback;
const BASE = env('BASE_URL', 'http://127.0.0.1:3910');
const USERS = Number(env('USERS', 4));
const ORDERS = Number(env('ORDERS', 400));
const CONCURRENCY = Number(env('CONCURRENCY', 32));
const HOSTS = Number(env('HOSTS', 50));
const PLAN = env('PLAN', 'g-l40s-x2');
const SITE = env('SITE', 'lax');
const PASSWORD = 'violet kettle harbour';

// fetch keeps no cookies: one jar per user, so each user is one session.
class Client {
  constructor() {
    this.cookies = new Map();
  }
  async request(path, { form, ...init } = {}) {
    const headers = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(BASE + path, {
      ...init,
      method: form ? 'POST' : 'GET',
      body: form ? new URLSearchParams(form).toString() : undefined,
      headers,
      redirect: 'manual',
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
    return res;
  }
  // A page's hidden inputs (csrf, idempotency_key), as the form would send them.
  async hidden(path) {
    const res = await this.request(path);
    const html = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    const fields = {};
    for (const [tag] of html.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
      const name = tag.match(/name="([^"]*)"/)?.[1];
      const value = tag.match(/value="([^"]*)"/)?.[1] ?? '';
      if (name) fields[name] = value;
    }
    return fields;
  }
}

function expectRedirect(res, what, to) {
  const location = res.headers.get('location') ?? '';
  if (res.status !== 303 || !location.includes(to)) {
    throw new Error(`${what}: ${res.status} ${location}`);
  }
}

async function newUser(i) {
  const email = `bench-${Date.now()}-${i}@example.com`;
  const user = new Client();
  const { csrf } = await user.hidden('/en/signup');
  const signup = await user.request('/en/signup', {
    form: { name: `Bench ${i}`, email, password: PASSWORD, company: `Bench ${i}`, lang: 'en', csrf },
  });
  expectRedirect(signup, 'signup', '/signup');
  const mail = execFileSync(process.env.SERVER_BIN, ['mail', 'outbox', '--to', email, '--limit', '1'], {
    encoding: 'utf8',
    env: { ...process.env, RUST_LOG: 'warn' },
  });
  const token = new URL(mail.match(/https?:\/\/\S+/)[0]).searchParams.get('token');
  // Same anonymous session, same CSRF token until the login replaces it.
  const verify = await user.request('/en/verify', { form: { token, csrf } });
  expectRedirect(verify, 'verify', '/login');
  const login = await user.request('/en/login', { form: { email, password: PASSWORD, csrf } });
  expectRedirect(login, 'login', '/servers'); // a member's landing page
  // An organization gives its billing profile before its first order.
  const form = await user.hidden('/en/billing/profile');
  const profile = await user.request('/en/billing/profile', {
    form: {
      legal_name: `Bench ${i}`,
      address: 'Teststraße 1',
      postal_code: '10115',
      city: 'Berlin',
      country: 'DE',
      vat_id: '',
      billing_email: email,
      csrf: form.csrf,
    },
  });
  expectRedirect(profile, 'billing profile', '/billing');
  return user;
}

// Runs jobs with at most `limit` in flight.
async function pool(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (x) => `${x.toFixed(1)} ms`;

const users = await Promise.all(Array.from({ length: USERS }, (_, i) => newUser(i)));

// Each POST carries its own form, read as a browser would; reading them
// first keeps the timed phase to the POSTs that race for hosts.
const formPath = `/en/order?plan=${PLAN}&site=${SITE}`;
const prepStart = performance.now();
const forms = await pool(
  Array.from({ length: ORDERS }, (_, i) => async () => {
    const user = users[i % USERS];
    return { user, fields: await user.hidden(formPath) };
  }),
  CONCURRENCY,
);
const prepSecs = (performance.now() - prepStart) / 1000;

const start = performance.now();
const outcomes = await pool(
  forms.map(({ user, fields }, i) => async () => {
    const t0 = performance.now();
    const res = await user.request('/en/order', {
      form: {
        plan: PLAN,
        site: SITE,
        idempotency_key: fields.idempotency_key,
        name: `bench-${i}`,
        image: 'ubuntu-24.04',
        intent: 'place',
        csrf: fields.csrf,
      },
    });
    await res.arrayBuffer();
    return { status: res.status, location: res.headers.get('location') ?? '', ms: performance.now() - t0 };
  }),
  CONCURRENCY,
);
const secs = (performance.now() - start) / 1000;

const placed = outcomes.filter((o) => o.status === 303 && o.location.includes('/servers/'));
const soldOut = outcomes.filter((o) => o.status === 409).length;
// The per-organization daily order limit (20): keep HOSTS <= 20 × USERS.
const limited = outcomes.filter((o) => o.status === 429).length;
const other = outcomes.length - placed.length - soldOut - limited;
const servers = new Set(placed.map((o) => o.location.split('?')[0]));
const sorted = (list) => list.map((o) => o.ms).sort((a, b) => a - b);
const lat = sorted(outcomes);
const latPlaced = sorted(placed);
const latSoldOut = sorted(outcomes.filter((o) => o.status === 409));
const ok = placed.length === HOSTS && servers.size === HOSTS && other === 0 && limited === 0;

console.log(`| | |
|---|---|
| users × orders, concurrency | ${USERS} × ${ORDERS / USERS}, ${CONCURRENCY} |
| free hosts (K) | ${HOSTS} |
| reading ${ORDERS} order forms (GET) | ${prepSecs.toFixed(2)} s |
| ${ORDERS} order POSTs, total time | ${secs.toFixed(2)} s |
| POSTs per second | ${(ORDERS / secs).toFixed(0)} |
| placed (303 → server) | ${placed.length} (distinct servers: ${servers.size}) |
| sold out (409) | ${soldOut} |
| daily order limit (429) | ${limited} |
| anything else | ${other} |
| POST latency p50 / p99 / max | ${ms(pct(lat, 50))} / ${ms(pct(lat, 99))} / ${ms(lat[lat.length - 1])} |
| p50 placed / p50 sold out | ${ms(pct(latPlaced, 50) ?? NaN)} / ${ms(pct(latSoldOut, 50) ?? NaN)} |
| placed == K | ${ok ? 'yes' : '**NO**'} |`);
if (other > 0) {
  const seen = new Map();
  for (const o of outcomes) if (![303, 409, 429].includes(o.status)) seen.set(o.status, (seen.get(o.status) ?? 0) + 1);
  console.error('unexpected answers by status:', Object.fromEntries(seen));
}
process.exit(ok ? 0 : 1);
