// The parameters of one compiled statement, in either dialect (dialect.ts). Every user value and every name of a
// `fields` key goes through add(); the SQL text holds only constants the compiler writes (issue 11 item 3).
import type { ParamSink, SqlDb, SqlDialect, SqlParam } from './dialect.js';

/**
 * Parameter 1 is always the tenant (its id, or its number in DuckDB's `logs`), so that the tenant condition reads the
 * same everywhere. Other values get marks that finish() numbers in order of appearance: DuckDB refuses a parameter
 * the statement does not use, and a compiled sort key, say, is only used when its ORDER BY is. The ⟦n⟧ marks cannot
 * clash with anything else in the text, which holds no user input.
 */
export class SqlParams implements ParamSink {
  private readonly pending: SqlParam[] = [];

  /** `tenant`: what the logs' tenant column holds for the tenant (SqlDb.tenantKey; forTenant()). */
  constructor(readonly dialect: SqlDialect, private readonly tenant: SqlParam) {}

  /** The parameters of a read of `tenantId`'s logs on `db`. */
  static forTenant(db: SqlDb, tenantId: string): SqlParams {
    return new SqlParams(db.dialect, db.tenantKey ? db.tenantKey(tenantId) : tenantId);
  }

  /** The tenant's placeholder. */
  tenantPlaceholder(): string {
    return this.dialect.placeholder(1, this.tenant);
  }

  add(v: SqlParam): string {
    return `⟦${this.pending.push(v) - 1}⟧`;
  }

  /** The statement with the dialect's placeholders and its parameter list, the first being the tenant id. */
  finish(sql: string): [string, SqlParam[]] {
    const params: SqlParam[] = [this.dialect.bind(this.tenant)];
    const numbers = new Map<number, number>();
    const text = sql.replace(/⟦(\d+)⟧/g, (_m, i: string) => {
      const index = Number(i);
      const v = this.pending[index] ?? null;
      let n = numbers.get(index);
      if (n === undefined) {
        params.push(this.dialect.bind(v));
        n = params.length;
        numbers.set(index, n);
      }
      return this.dialect.placeholder(n, v);
    });
    return [text, params];
  }
}
