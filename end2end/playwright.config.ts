import { defineConfig } from '@playwright/test';

// The server is started by ./run.sh, which exports BASE_URL (plus SERVER_BIN and
// DATABASE_URL for the tests that drive the operator CLI). Run the suite through
// run.sh rather than calling `npx playwright test` directly.
export default defineConfig({
  testDir: 'tests',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: 'list',
  // A debug build on 2 cores: journeys that sign in take tens of seconds.
  timeout: 60_000,
  expect: { timeout: 5_000 },
  forbidOnly: !!process.env.CI,
  use: {
    baseURL: process.env.BASE_URL,
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
