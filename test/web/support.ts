// The web app's end-to-end harness (issue 8 item 12): the real service on port 0 serving its built app, a
// headless Debian Chromium driven by playwright-core, accounts and users made through the real APIs, and a
// screenshot of each page kept in test-output/screenshots/ to be looked at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { call, newAccount, startService, type RunningService, type TestAccount } from '../support/service.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = (): boolean => existsSync(CHROMIUM);
export const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots');

/** Flags that keep Chromium off the network it cannot reach here (no background services, no updates). */
const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

export interface AppUser {
  email: string;
  password: string;
  role: 'admin' | 'member' | 'viewer';
}

export interface AppWorld {
  svc: RunningService;
  account: TestAccount;
  browser: Browser;
  stop(): Promise<void>;
}

/** A service, an account (tier `tier`, default custom) and a browser. */
export async function startWorld(opts: { tier?: string; env?: Record<string, string> } = {}): Promise<AppWorld> {
  const svc = await startService(opts.env ? { env: opts.env } : {});
  const account = await newAccount(svc, { tier: opts.tier ?? 'custom' });
  const browser = await launchBrowser();
  return {
    svc, account, browser,
    async stop() {
      await browser.close();
      await svc.stop();
    },
  };
}

/** Adds a user with a password through the users API (an admin key of the account). */
export async function addUser(world: AppWorld, role: AppUser['role'], email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`): Promise<AppUser> {
  const password = `pw-${Math.random().toString(36).slice(2)}-Aa1`;
  const r = await call(`${world.svc.app}/api/v1/account/users`, {
    method: 'POST',
    headers: { 'X-API-Key': world.account.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, role, password }),
  });
  if (r.status !== 201) throw new Error(`user creation failed: ${r.status} ${r.text}`);
  return { email, password, role };
}

/** A fresh browser context signed in as `user` through the sign-in form, on `path` (under /app/). */
export async function signedIn(world: AppWorld, user: AppUser, path = 'explore'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await world.browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' });
  const page = await context.newPage();
  await page.goto(`${world.svc.app}/app/${path}`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  return { context, page };
}

/** Keeps a picture of what the page shows, for a person to look at (issue 8 item 12). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** POSTs JSON to an ingest-door path (OTLP JSON, replay chunks, …) with the account's key; fails unless 200. */
export async function postIngest(world: AppWorld, path: string, body: unknown): Promise<void> {
  const r = await call(`${world.svc.ingest}${path}`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'X-API-Key': world.account.key, 'Content-Type': 'application/json' },
  });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
}

/** Sends log entries through the native ingest path. */
export async function ingestLogs(world: AppWorld, entries: Record<string, unknown>[]): Promise<void> {
  const r = await call(`${world.svc.ingest}/api/v1/ingest`, {
    method: 'POST',
    headers: { 'X-API-Key': world.account.key, 'Content-Type': 'application/json' },
    body: JSON.stringify(entries),
  });
  if (r.status !== 200) throw new Error(`ingest failed: ${r.status} ${r.text}`);
}

/** Polls a LogsQL query until it returns at least `n` rows. */
export async function waitForRows(world: AppWorld, query: string, n: number, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/select/logsql/query?query=${encodeURIComponent(query)}&limit=${n}`, {
      headers: { 'X-API-Key': world.account.key },
    });
    const rows = r.text.split('\n').filter((l) => l !== '').length;
    if (rows >= n) return;
    if (Date.now() > end) throw new Error(`only ${rows} of ${n} rows for ${query}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
