// Settings end to end in a real Chromium (issue 8 item 9; DESIGN §7 Settings → API Keys, Users, Usage, Plan):
// an admin creates a key (scopes, expiry), sees its secret once with Copy, uses it, rotates it (the old secret is
// refused at once) and revokes it; a trial_expired account meets the key ceiling as the API words it; a user added
// with a password signs in, changes role, and is signed out when removed; usage after ingest with the 30-day chart;
// the plan's tier and limits; changing one's password; a viewer sees no write controls. Screenshots of each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { call, newAccount } from '../support/service.js';
import { addUser, hasChromium, ingestLogs, screenshot, signedIn, startWorld, type AppUser, type AppWorld } from './support.js';

const skip = hasChromium() ? false : 'Chromium is not installed (/usr/bin/chromium)';
let world: AppWorld;
let admin: AppUser;

before(async () => {
  if (skip !== false) return;
  world = await startWorld();
  admin = await addUser(world, 'admin');
});
after(async () => {
  if (skip === false) await world.stop();
});

/** A tenant read with `secret` as the API key: its HTTP status. */
const readWith = async (secret: string): Promise<number> =>
  (await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/select/logsql/query?query=*&limit=1`, { headers: { 'X-API-Key': secret } })).status;

/** The secret in the show-once dialog named `title`, after checking its Copy button puts it on the clipboard. */
async function secretFrom(page: Page, title: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  const secret = await dialog.getByLabel('Secret').inputValue();
  assert.ok(secret.length >= 20, `secret ${secret}`);
  assert.match(await dialog.innerText(), /will not be shown again/);
  await dialog.getByRole('button', { name: 'Copy' }).click();
  await dialog.getByText('Copied to the clipboard').waitFor();
  assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
  return secret;
}

/** Same bytes wording as the app (lib/time formatBytes: GB = 10^9, DESIGN §6). */
function bytesText(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i] ?? ''}`;
}

describe('Settings', { skip }, () => {
  test('API keys: create with scopes and expiry, secret once with Copy, use, rotate, revoke', async () => {
    const { context, page } = await signedIn(world, admin, 'settings/keys');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.svc.app });
    try {
      const table = page.getByRole('table', { name: 'API keys' });
      await table.waitFor();
      await page.getByRole('button', { name: 'Create API key' }).click();
      const form = page.getByRole('form', { name: 'New API key' });
      await form.getByLabel('Name').fill('ci-shipper');
      await form.getByRole('checkbox', { name: 'ingest' }).check();
      assert.equal(await form.getByRole('checkbox', { name: 'read' }).isChecked(), true);
      assert.equal(await form.getByRole('checkbox', { name: 'admin' }).isChecked(), false);
      const expiry = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      await form.getByLabel(/Expires/).fill(expiry);
      await form.getByRole('button', { name: 'Create' }).click();
      const secret = await secretFrom(page, 'API key created');
      await screenshot(page, 'settings-keys-secret');
      await page.getByRole('dialog', { name: 'API key created' }).getByRole('button', { name: 'Done' }).click();

      const row = table.getByRole('row', { name: /ci-shipper/ });
      await row.waitFor();
      const text = await row.innerText();
      assert.match(text, /ingest/);
      assert.match(text, /read/);
      assert.doesNotMatch(text, /admin/);
      assert.match(text, new RegExp(expiry));
      // Shown once: nowhere on the page after the dialog, nor after a reload.
      assert.ok(!(await page.content()).includes(secret));
      await page.reload();
      await row.waitFor();
      assert.ok(!(await page.content()).includes(secret));
      await screenshot(page, 'settings-keys');
      await page.getByRole('button', { name: 'Toggle theme' }).click();
      await screenshot(page, 'settings-keys-other-theme');

      // The secret works as an API key: read (scope read) and ingest (scope ingest).
      assert.equal(await readWith(secret), 200);
      const ingest = await call(`${world.svc.ingest}/api/v1/ingest`, {
        method: 'POST', headers: { 'X-API-Key': secret, 'Content-Type': 'application/json' }, body: JSON.stringify([{ _msg: 'from the new key' }]),
      });
      assert.equal(ingest.status, 200, ingest.text);

      // Rotate: confirm first; the new secret is shown once; the old one is refused at once.
      await row.getByRole('button', { name: /^Rotate/ }).click();
      await page.getByRole('alertdialog', { name: 'Rotate API key' }).getByRole('button', { name: 'Rotate' }).click();
      const rotated = await secretFrom(page, 'API key rotated');
      assert.notEqual(rotated, secret);
      await page.getByRole('dialog', { name: 'API key rotated' }).getByRole('button', { name: 'Done' }).click();
      assert.equal(await readWith(secret), 403);
      assert.equal(await readWith(rotated), 200);

      // Revoke: cancel leaves it; confirm removes it from the table and the API.
      await row.getByRole('button', { name: /^Revoke/ }).click();
      await page.getByRole('alertdialog', { name: 'Revoke API key' }).getByRole('button', { name: 'Cancel' }).click();
      assert.equal(await readWith(rotated), 200);
      await row.getByRole('button', { name: /^Revoke/ }).click();
      await page.getByRole('alertdialog', { name: 'Revoke API key' }).getByRole('button', { name: 'Revoke' }).click();
      await row.waitFor({ state: 'detached' });
      assert.equal(await readWith(rotated), 403);
    } finally {
      await context.close();
    }
  });

  test('a trial_expired account sees the banner, meets the key ceiling as the API words it, and can still search', async () => {
    const expired = await newAccount(world.svc, { tier: 'trial_expired' });
    const owner = await addUser({ ...world, account: expired }, 'admin');
    const { context, page } = await signedIn(world, owner, 'settings/keys');
    try {
      const banner = page.getByRole('status').filter({ hasText: /trial/i }).first();
      await banner.waitFor();
      const table = page.getByRole('table', { name: 'API keys' });
      await table.getByRole('row').nth(1).waitFor(); // the account's first key
      // The plan allows 2 keys; the account has 1: one more is created, the next is refused.
      for (const name of ['second', 'third']) {
        await page.getByRole('button', { name: 'Create API key' }).click();
        const form = page.getByRole('form', { name: 'New API key' });
        await form.getByLabel('Name').fill(name);
        await form.getByRole('button', { name: 'Create' }).click();
        if (name === 'second') {
          await page.getByRole('dialog', { name: 'API key created' }).getByRole('button', { name: 'Done' }).click();
          await table.getByRole('row', { name: /second/ }).waitFor();
        }
      }
      const refusal = page.getByRole('form', { name: 'New API key' }).getByRole('alert');
      await refusal.waitFor();
      // The API's own words for the ceiling, as it answers the same request with a key.
      const api = await call(`${world.svc.app}/api/v1/tenants/${expired.tenantId}/keys`, {
        method: 'POST', headers: { 'X-API-Key': expired.key, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'x', scopes: ['read'] }),
      });
      assert.equal(api.status, 403);
      const detail = (api.json as { detail: string }).detail;
      assert.match(detail, /limit reached \(2\)/);
      assert.equal((await refusal.innerText()).replace(/\s+/g, ' '), `403 ${detail}`);
      assert.equal(await table.getByRole('row', { name: /third/ }).count(), 0);
      await screenshot(page, 'settings-keys-ceiling');

      // Search still works on trial_expired (DESIGN §8 / spec: reads stay open).
      await page.getByRole('link', { name: 'Explore' }).click();
      await page.getByRole('region', { name: 'Results' }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.equal(await page.getByRole('alert').count(), 0, 'no error on search');
    } finally {
      await context.close();
    }
  });

  test('users: add with a password, sign in as them, change role, remove ends their session; invite link', async () => {
    const { context, page } = await signedIn(world, admin, 'settings/users');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: world.svc.app });
    const email = `pat-${Date.now()}@example.com`;
    const password = 'correct-horse-battery-9';
    try {
      const table = page.getByRole('table', { name: 'Users' });
      await table.waitFor();
      await page.getByRole('button', { name: 'Add user' }).click();
      const form = page.getByRole('form', { name: 'New user' });
      await form.getByLabel('Email').fill(email);
      await form.getByLabel('Role').selectOption('member');
      await form.getByLabel('Initial password').fill(password);
      await form.getByRole('button', { name: 'Create user' }).click();
      await table.getByRole('row', { name: new RegExp(email) }).waitFor();
      await screenshot(page, 'settings-users');

      const them = await signedIn(world, { email, password, role: 'member' }, 'settings/usage');
      try {
        await them.page.getByText(`${email} · member`).waitFor();
        await page.getByLabel(`Role of ${email}`).selectOption('viewer');
        await page.getByRole('status').filter({ hasText: `${email} is now viewer` }).waitFor();
        await them.page.reload();
        await them.page.getByText(`${email} · viewer`).waitFor();

        await table.getByRole('button', { name: `Remove ${email}` }).click();
        await page.getByRole('alertdialog', { name: 'Remove user' }).getByRole('button', { name: 'Remove' }).click();
        await table.getByRole('row', { name: new RegExp(email) }).waitFor({ state: 'detached' });
        // Their next action meets a 401 and returns them to sign-in.
        await them.page.getByRole('link', { name: 'Plan' }).click();
        await them.page.getByRole('button', { name: 'Sign in' }).waitFor();
      } finally {
        await them.context.close();
      }

      // An invite instead of a password: the link is shown once to pass on, and sets the password.
      const invited = `inv-${Date.now()}@example.com`;
      await page.getByRole('button', { name: 'Add user' }).click();
      await form.getByLabel('Email').fill(invited);
      await form.getByLabel('Make an invite link to send').check();
      await form.getByRole('button', { name: 'Create user' }).click();
      const dialog = page.getByRole('dialog', { name: 'Invite link' });
      const link = await dialog.getByLabel('Invite link').inputValue();
      assert.match(link, /^http:\/\/.+token=/);
      await screenshot(page, 'settings-users-invite');
      await dialog.getByRole('button', { name: 'Done' }).click();
      const ctx = await world.browser.newContext();
      try {
        const p = await ctx.newPage();
        await p.goto(link);
        await p.getByLabel('Password').fill('invited-password-1');
        await p.getByRole('button', { name: 'Set password and sign in' }).click();
        await p.getByRole('navigation', { name: 'Main' }).waitFor();
        await p.getByText(`${invited} · member`).waitFor();
      } finally {
        await ctx.close();
      }
    } finally {
      await context.close();
    }
  });

  test('usage shows today\'s bytes per signal after ingest and the 30-day chart', async () => {
    await ingestLogs(world, Array.from({ length: 50 }, (_, i) => ({ _msg: `usage line ${i}`, service: 'usage-test' })));
    const usage = (await call(`${world.svc.app}/api/v1/tenants/${world.account.tenantId}/usage`, { headers: { 'X-API-Key': world.account.key } })).json as
      { bytes_accepted: number; by_signal: { logs: number } };
    assert.ok(usage.by_signal.logs > 0);
    const { context, page } = await signedIn(world, admin, 'settings/usage');
    try {
      const logs = page.getByRole('listitem', { name: /^logs / });
      await logs.waitFor();
      assert.equal(await logs.getAttribute('aria-label'), `logs ${bytesText(usage.by_signal.logs)}`);
      assert.equal(await page.getByLabel('Accepted today').innerText(), bytesText(usage.bytes_accepted));
      const meter = page.getByRole('meter', { name: "Today's volume" });
      assert.equal(Number(await meter.getAttribute('aria-valuenow')), usage.bytes_accepted);
      const chart = page.getByRole('img', { name: /^Daily usage by signal, last 30 days/ });
      await chart.locator('canvas').waitFor();
      assert.doesNotMatch((await chart.getAttribute('aria-label')) ?? '', /, 0 B in all$/);
      await screenshot(page, 'settings-usage');
      await page.getByRole('button', { name: 'Toggle theme' }).click();
      await chart.locator('canvas').waitFor();
      await screenshot(page, 'settings-usage-other-theme');
    } finally {
      await context.close();
    }
  });

  test('plan shows the tier and limits; a password change takes effect', async () => {
    const user = await addUser(world, 'member');
    const { context, page } = await signedIn(world, user, 'settings/plan');
    try {
      await page.getByLabel('Tier').filter({ hasText: 'custom' }).waitFor();
      const limits = page.getByRole('table', { name: 'Plan limits' });
      assert.match(await limits.getByRole('row', { name: /Ingest rate/ }).innerText(), /10,000 entries\/s/);
      assert.match(await limits.getByRole('row', { name: /Retention/ }).innerText(), /90 days/);
      assert.match(await limits.getByRole('row', { name: /Included per day/ }).innerText(), /500\.0 GB/);
      assert.match(await page.getByRole('table', { name: 'Plan ceilings' }).getByRole('row', { name: /API keys/ }).innerText(), /unlimited/);
      await page.getByLabel('AI credits left').waitFor();
      await screenshot(page, 'settings-plan');

      const form = page.getByRole('form', { name: 'Change password' });
      await form.getByLabel('Current password').fill('not-my-password');
      await form.getByLabel('New password', { exact: true }).fill('brand-new-password-1');
      await form.getByLabel('Repeat new password').fill('brand-new-password-1');
      await form.getByRole('button', { name: 'Change password' }).click();
      await form.getByRole('alert').waitFor(); // the API's refusal, worded by it
      await form.getByLabel('Current password').fill(user.password);
      await form.getByRole('button', { name: 'Change password' }).click();
      await form.getByText('Password changed').waitFor();
      const fresh = await signedIn(world, { ...user, password: 'brand-new-password-1' }, 'settings/plan');
      await fresh.context.close();
    } finally {
      await context.close();
    }
  });

  test('a viewer sees no write controls: no Create API key, no user controls', async () => {
    const viewer = await addUser(world, 'viewer');
    const { context, page } = await signedIn(world, viewer, 'settings/keys');
    try {
      await page.getByText('API keys are managed by the account’s admins').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Create API key' }).count(), 0);
      assert.equal(await page.getByRole('table', { name: 'API keys' }).count(), 0);
      await screenshot(page, 'settings-keys-viewer');
      await page.getByRole('link', { name: 'Users' }).click();
      await page.getByText('Users are managed by the account’s admins').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Add user' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0);
      assert.equal(await page.getByRole('combobox', { name: /^Role of/ }).count(), 0);
      await page.getByRole('link', { name: 'Usage' }).click();
      await page.getByRole('meter', { name: "Today's volume" }).waitFor();
      assert.equal(await page.getByRole('button', { name: /Create|Add|Remove|Revoke|Rotate/ }).count(), 0);
    } finally {
      await context.close();
    }
  });
});
