// The parameters of one compiled statement, in either dialect (dialect.ts). Every user value and every name of a
// `fields` key goes through add(); the SQL text holds only constants the compiler writes (issue 11 item 3).
import type { ParamSink, SqlDialect, SqlParam } from './dialect.js';

/**
 * Parameter 1 is always the tenant id, so that the tenant condition reads the same everywhere. Other values get
 * marks that finish() numbers in order of appearance: DuckDB refuses a parameter the statement does not use, and a
 * compiled sort key, say, is only used when its ORDER BY is. The ⟦n⟧ marks cannot clash with anything else in the
 * text, which holds no user input.
 */
export class SqlParams implements ParamSink {
  private readonly pending: SqlParam[] = [];

  constructor(readonly dialect: SqlDialect, private readonly tenantId: string) {}

  /** The tenant id's placeholder. */
  tenant(): string {
    return this.dialect.placeholder(1, this.tenantId);
  }

  add(v: SqlParam): string {
    return `⟦${this.pending.push(v) - 1}⟧`;
  }

  /** The statement with the dialect's placeholders and its parameter list, the first being the tenant id. */
  finish(sql: string): [string, SqlParam[]] {
    const params: SqlParam[] = [this.dialect.bind(this.tenantId)];
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
