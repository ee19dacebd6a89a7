/**
 * Revenue of a plan in a month, by region. The task needs the invoices table's column names (from its schema) in
 * its query, and the totals of the query in its computation and its answer.
 */
import { sqlTable } from './outputs.js';
import { plan, REGIONS } from './world.js';
import type { RunWriter } from './writer.js';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September'];

/** Reads the schema; returns the column names, some of them with a prefix of this company's own. */
function readSchema(writer: RunWriter): string[] {
  const prefix = writer.random.pick(['inv', 'bill', 'fin']);
  const columns = [
    `${prefix}_invoice_id`,
    'customer_id',
    `${prefix}_plan_code`,
    `${prefix}_region_code`,
    `${prefix}_amount_cents`,
    'currency',
    'issued_at',
    `${prefix}_paid_at`,
    'status',
    'created_by',
    'updated_at',
  ];
  const type = (column: string) =>
    column.endsWith('_cents') ? 'bigint' : column.endsWith('_at') ? 'timestamptz' : 'text';
  const rows = columns.map((column) => [column, type(column), column.endsWith('paid_at') ? 'yes' : 'no']);
  const indexes = `Indexes:\n    "invoices_pkey" PRIMARY KEY, btree (${columns[0]})\n    "invoices_paid_idx" btree (${columns[7]})`;
  writer.act(
    'Reading the invoices schema.',
    'query_db',
    { sql: '\\d invoices', database: 'finance' },
    `Table "public.invoices"\n${sqlTable(['Column', 'Type', 'Nullable'], rows)}\n${indexes}`,
  );
  return columns;
}

/** Answers how much a plan's customers paid in a month, by region. */
export function reportTask(writer: RunWriter): void {
  const { random } = writer;
  const chosen = plan(random);
  const month = random.int(1, 9);
  writer.user(
    `Finance asks: how much did ${chosen} customers pay us in ${MONTHS[month - 1]}, by region? A short table is fine.`,
  );
  const columns = readSchema(writer);
  writer.detour(0, 2);
  const totals = REGIONS.map((name) => [name, String(random.int(40, 900)), String(random.int(1_000_000, 90_000_000))]);
  const start = `2025-${String(month).padStart(2, '0')}-01`;
  const end = `2025-${String(month + 1).padStart(2, '0')}-01`;
  writer.act(
    `Summing ${columns[4]} by ${columns[3]}.`,
    'query_db',
    {
      sql: `SELECT ${columns[3]}, count(*), sum(${columns[4]}) FROM invoices WHERE ${columns[2]} = '${chosen}' AND ${columns[7]} >= '${start}' AND ${columns[7]} < '${end}' GROUP BY 1 ORDER BY 3 DESC`,
      database: 'finance',
    },
    sqlTable([columns[3] as string, 'count', 'sum'], totals),
  );
  writer.detour(0, 1);
  const all = totals.reduce((sum, row) => sum + Number(row[2]), 0);
  const lines = totals.map(
    (row) => `${row[0]}: ${(Number(row[2]) / 100).toFixed(2)} EUR (${((Number(row[2]) / all) * 100).toFixed(1)}%)`,
  );
  writer.act(
    'Formatting the totals and shares.',
    'run_python',
    {
      code: `totals = {${totals.map((row) => `"${row[0]}": ${row[2]}`).join(', ')}}\nall_ = sum(totals.values())\nfor r, v in totals.items(): print(f"{r}: {v / 100:.2f} EUR ({v / all_:.1%})")`,
    },
    `${lines.join('\n')}\n`,
  );
  writer.say(
    `${chosen} customers paid in ${MONTHS[month - 1]} (paid invoices):\n${lines.map((each) => `- ${each}`).join('\n')}`,
  );
}
