// Imported playbooks as the control store keeps them (DESIGN §9 `ai/playbooks`, issue 10 item 4): a runbook's title,
// the format it came in, its steps as the importer made them (JSON, returned untouched), and the ids of the saved
// searches and detectors the import created, so the web app can show a playbook beside alerts and link both ways.
// Times are unix ms. ControlStore extends PlaybookStore (control-store.ts); sql-playbooks.ts implements it.

export const PLAYBOOK_FORMATS = ['markdown', 'yaml'] as const;
export type PlaybookFormat = (typeof PLAYBOOK_FORMATS)[number];

export interface StoredPlaybook {
  /** `pbk_…`, chosen by the importer before it creates detectors, whose labels name it. */
  id: string;
  tenantId: string;
  accountId: string;
  title: string;
  format: PlaybookFormat;
  /** The steps as the importer rendered them (src/ai/playbooks/model.ts PlaybookStep); stored as jsonb. */
  steps: unknown[];
  savedSearchIds: string[];
  detectorIds: string[];
  createdAt: number;
}

export type NewPlaybook = Omit<StoredPlaybook, 'createdAt'>;

export interface PlaybookStore {
  createPlaybook(input: NewPlaybook): Promise<StoredPlaybook>;
  getPlaybook(id: string): Promise<StoredPlaybook | null>;
  /** The tenant's playbooks, newest first. */
  listPlaybooks(tenantId: string): Promise<StoredPlaybook[]>;
  /** True when it existed and is gone now (what it created stays: they are the tenant's own detectors now). */
  deletePlaybook(id: string): Promise<boolean>;
}
