// Imported playbooks in the control store (DESIGN §9; playbook-records.ts), in the same PostgreSQL dialect as the
// rest. SqlControlStore extends this class (its own file only to keep each under ~400 lines).
import { PLAYBOOK_FORMATS, type NewPlaybook, type PlaybookFormat, type StoredPlaybook } from './playbook-records.js';
import { num, one, parseTextArray } from './sql-rows.js';
import { SqlNotifications } from './sql-notifications.js';

interface PlaybookRow {
  id: string; tenant_id: string; account_id: string; title: string; format: string; steps: unknown;
  saved_search_ids: unknown; detector_ids: unknown; created_at: unknown;
}

export abstract class SqlPlaybooks extends SqlNotifications {
  async createPlaybook(input: NewPlaybook): Promise<StoredPlaybook> {
    const rows = await this.q<PlaybookRow>(
      `INSERT INTO playbooks (id, tenant_id, account_id, title, format, steps, saved_search_ids, detector_ids, created_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::text[], $8::text[], $9) RETURNING *`,
      [input.id, input.tenantId, input.accountId, input.title, input.format, JSON.stringify(input.steps),
        input.savedSearchIds, input.detectorIds, this.clock.now()],
    );
    return toPlaybook(one(rows));
  }

  async getPlaybook(id: string): Promise<StoredPlaybook | null> {
    const rows = await this.q<PlaybookRow>('SELECT * FROM playbooks WHERE id = $1', [id]);
    return rows[0] ? toPlaybook(rows[0]) : null;
  }

  async listPlaybooks(tenantId: string): Promise<StoredPlaybook[]> {
    const rows = await this.q<PlaybookRow>('SELECT * FROM playbooks WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC', [tenantId]);
    return rows.map(toPlaybook);
  }

  async deletePlaybook(id: string): Promise<boolean> {
    return (await this.q<{ id: string }>('DELETE FROM playbooks WHERE id = $1 RETURNING id', [id])).length > 0;
  }
}

function textArray(v: unknown): string[] {
  const raw: unknown = typeof v === 'string' ? parseTextArray(v) : v;
  return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
}

function toFormat(v: string): PlaybookFormat {
  const f = PLAYBOOK_FORMATS.find((x) => x === v);
  if (!f) throw new Error(`control store holds an unknown playbook format ${JSON.stringify(v)}`);
  return f;
}

function toPlaybook(r: PlaybookRow): StoredPlaybook {
  const steps: unknown = typeof r.steps === 'string' ? JSON.parse(r.steps) : r.steps;
  return {
    id: r.id, tenantId: r.tenant_id, accountId: r.account_id, title: r.title, format: toFormat(r.format),
    steps: Array.isArray(steps) ? steps : [], savedSearchIds: textArray(r.saved_search_ids), detectorIds: textArray(r.detector_ids),
    createdAt: num(r.created_at),
  };
}
