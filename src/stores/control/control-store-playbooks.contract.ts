// The part of the control-store contract that imported playbooks need (DESIGN §9 `ai/playbooks`): a playbook reads
// back as created (steps JSON untouched, the created ids in order), lists per tenant newest first, and deletes.
// Registered by control-store.contract.ts inside its suite, so it runs on every backend.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { ControlStore } from './control-store.js';
import type { NewPlaybook } from './playbook-records.js';

type TenantOf = () => Promise<{ accountId: string; tenantId: string }>;

const pid = (): string => `pbk_${randomBytes(12).toString('hex')}`;

export function playbooksContract(s: () => ControlStore, tenantOf: TenantOf): void {
  const newPlaybook = (t: { accountId: string; tenantId: string }, over: Partial<NewPlaybook> = {}): NewPlaybook => ({
    id: pid(), tenantId: t.tenantId, accountId: t.accountId, title: 'Checkout errors', format: 'markdown',
    steps: [
      { title: 'Look at the errors', text: 'Open the errors.', query: 'service:checkout level:error', signal: 'logs' },
      { title: 'Restart', text: 'Restart the pods.', manual: { language: 'kubectl', command: 'kubectl rollout restart deploy/checkout' } },
      { title: 'Unicode ✓ and "quotes"', text: 'p99 ≥ 500 ms', alerts: [{ sentence: 'alert if p99 > 500ms', nested: { n: 1.5, ok: true, none: null } }] },
    ],
    savedSearchIds: ['srch_b', 'srch_a'], detectorIds: ['det_1'], ...over,
  });

  void it('playbooks: one reads back as created under its id, steps JSON and created ids untouched', async () => {
    const t = await tenantOf();
    const input = newPlaybook(t);
    const p = await s().createPlaybook(input);
    assert.deepEqual({ ...p, createdAt: 0 }, { ...input, createdAt: 0 });
    assert.ok(p.createdAt > 0);
    assert.deepEqual(await s().getPlaybook(p.id), p);
    assert.equal(await s().getPlaybook(pid()), null);
  });

  void it('playbooks: listed per tenant newest first; a yaml one with nothing created; delete once', async () => {
    const t = await tenantOf();
    const first = await s().createPlaybook(newPlaybook(t));
    await new Promise((r) => setTimeout(r, 5));
    const second = await s().createPlaybook(newPlaybook(t, { format: 'yaml', title: 'second', savedSearchIds: [], detectorIds: [] }));
    await s().createPlaybook(newPlaybook(await tenantOf(), { title: 'elsewhere' }));
    const list = await s().listPlaybooks(t.tenantId);
    assert.deepEqual(list.map((x) => x.id), [second.id, first.id]);
    assert.deepEqual([list[0]?.format, list[0]?.savedSearchIds, list[0]?.detectorIds], ['yaml', [], []]);
    assert.equal(await s().deletePlaybook(first.id), true);
    assert.equal(await s().deletePlaybook(first.id), false);
    assert.deepEqual((await s().listPlaybooks(t.tenantId)).map((x) => x.id), [second.id]);
  });

  void it('playbooks: an unknown format or a tenant that does not exist is refused', async () => {
    const t = await tenantOf();
    await assert.rejects(s().createPlaybook(newPlaybook(t, { format: 'docx' as 'yaml' })));
    await assert.rejects(s().createPlaybook(newPlaybook({ ...t, tenantId: 'ten_missing' })));
  });
}
