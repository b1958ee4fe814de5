import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every storefront page is valid HTML, checked by the Nu Html Checker
// (vnu.jar from npm's vnu-jar, run with the machine's Java).
const PAGES = [
  '/zh',
  '/en',
  '/en?city=Tokyo',
  '/zh/configure?plan=g-l40s',
  '/en/configure?plan=g-l40s&site=fra',
  '/en/configure?plan=g-l40s&site=lax',
  '/en/configure?plan=nope',
  '/en/no-such-page',
  '/en/login',
  '/zh/signup',
  '/en/forgot',
  '/en/reset?token=x',
];

test('storefront pages are valid HTML', async ({ request }) => {
  const dir = mkdtempSync(join(tmpdir(), 'vnu-'));
  try {
    const files: string[] = [];
    for (const [i, path] of PAGES.entries()) {
      const response = await request.get(path);
      const file = join(dir, `page-${i}.html`);
      writeFileSync(file, await response.text());
      files.push(file);
    }
    const jar = require.resolve('vnu-jar/build/dist/vnu.jar');
    let report = '';
    try {
      execFileSync('java', ['-jar', jar, '--errors-only', '--format', 'json', ...files], { stdio: 'pipe' });
    } catch (error: any) {
      if (error.code === 'ENOENT') throw new Error('java is required for HTML validation');
      report = String(error.stderr || error.stdout || '');
    }
    const messages = report ? JSON.parse(report).messages : [];
    const described = messages.map(
      (m: any) => `${PAGES[files.indexOf(decodeURI(m.url).replace('file:', ''))] ?? m.url}: ${m.message} (${m.extract ?? ''})`,
    );
    expect(described, described.join('\n')).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
