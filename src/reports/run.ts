/**
 * Reads a report from its view. The column list comes from the database, so a report with no rows
 * still prints its header.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.js';
import type { Report } from '../catalog/index.js';

export interface ReportResult {
  columns: string[];
  rows: Record<string, unknown>[];
}

export async function runReport(db: Kysely<Database>, schema: string, report: Report): Promise<ReportResult> {
  const { rows: columnRows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
     where table_schema = ${schema} and table_name = ${report.name}
     order by ordinal_position`.execute(db);
  const { rows } = await sql<Record<string, unknown>>`
    select * from ${sql.table(report.name)} order by ${sql.raw(report.orderBy)}`.execute(db);
  return { columns: columnRows.map((row) => row.column_name), rows };
}
