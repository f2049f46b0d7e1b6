/**
 * Hot read queries as named prepared statements. drizzle's `db.execute(sql\`…\`)` sends an
 * unnamed statement: postgres.js then needs two round trips when there are parameters (parse and
 * describe, then bind and execute) and PostgreSQL plans the query every time. A prepared statement
 * is described once per connection, then costs one round trip, and PostgreSQL may reuse its plan.
 *
 * Only for queries whose text takes a bounded number of shapes (values always as parameters):
 * postgres.js keeps every statement it prepared per connection. And only where one plan suits
 * every value: after five runs PostgreSQL may switch to a generic plan that ignores the values
 * (a full-text search's selectivity, for one, depends entirely on its words: keep those unprepared).
 */
import type { SQL } from 'drizzle-orm';
import type postgres from 'postgres';
import type { DbOrTx } from './db.js';

type DrizzleInternals = {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: { client: postgres.Sql };
};

export async function executePrepared<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  // drizzle keeps its dialect and the postgres.js client (or the transaction's) on these fields.
  const { dialect, session } = db as unknown as DrizzleInternals;
  const built = dialect.sqlToQuery(query);
  const rows = await session.client.unsafe(built.sql, built.params as postgres.ParameterOrJSON<never>[], { prepare: true });
  return rows as unknown as T[];
}
