/**
 * Generates `coding-agent.jsonl` (next to this file): a self-authored, realistic coding-agent session used by the
 * demo. The agent works in a small fictional TypeScript service ("invoice-service"): it fixes a currency rounding
 * bug, then, after a second user message, adds a `--dry-run` flag to a CLI and updates the docs.
 *
 * Everything here is original text written for this project. The generator is deterministic (no clock, no
 * randomness): a tiny in-memory file system holds the fictional repository, so file reads, searches, edits, line
 * numbers in test failures and the final diff stat all come from the same evolving file contents.
 *
 * Run: npx tsx examples/sessions/make-coding-agent-session.ts
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------------------------
// Session shape (same as the shared trajectory fixtures)
// ---------------------------------------------------------------------------------------------------------------

type Role = 'system' | 'user' | 'assistant' | 'tool';
type Args = Record<string, string>;

interface ToolCall {
  id: string;
  name: string;
  args: Args;
}

interface SessionMessage {
  role: Role;
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolName?: string;
}

interface Session {
  id: string;
  source: string;
  task: string;
  messages: SessionMessage[];
  meta: {
    description: string;
    steps: number;
    toolCalls: number;
    repository: string;
    facts: string[];
  };
}

/** One tool invocation and the output the tool returned. */
interface Call {
  name: string;
  args: Args;
  output: string;
}

class SessionBuilder {
  readonly messages: SessionMessage[] = [];
  private nextCallId = 1;

  system(content: string): void {
    this.messages.push({ role: 'system', content });
  }

  user(content: string): void {
    this.messages.push({ role: 'user', content });
  }

  /** An assistant message without tool calls. */
  say(content: string): void {
    this.messages.push({ role: 'assistant', content });
  }

  /** An assistant message that calls one or more tools, followed by one tool message per call. */
  step(content: string, ...calls: Call[]): void {
    const toolCalls = calls.map((call) => ({
      id: `call_${String(this.nextCallId++).padStart(3, '0')}`,
      name: call.name,
      args: call.args,
    }));
    this.messages.push({ role: 'assistant', content, toolCalls });
    calls.forEach((call, index) => {
      const id = toolCalls[index]?.id ?? '';
      this.messages.push({ role: 'tool', content: call.output, toolCallId: id, toolName: call.name });
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers for embedded source text
// ---------------------------------------------------------------------------------------------------------------

/**
 * Template tag for the fictional repository's files: backslashes stay as written, \` stands for a backtick and
 * \${ for a literal "${". One leading newline is dropped so that text can start on the next line.
 */
function code(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings.raw }, ...values);
  return text.replaceAll('\\`', '`').replaceAll('\\${', '${').replace(/^\n/, '');
}

function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') {
    lines.pop();
  }
  return lines;
}

/** A stable pseudo-duration in milliseconds, derived from a key (FNV-1a), for test reporter output. */
function fakeMs(key: string, min: number, max: number): number {
  let hash = 2166136261;
  for (const char of key) {
    hash = Math.imul(hash ^ (char.codePointAt(0) ?? 0), 16777619) >>> 0;
  }
  return min + (hash % (max - min + 1));
}

/** Number of lines two texts have in common (longest common subsequence), for the diff stat. */
function commonLines(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1] ?? 0);
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

// ---------------------------------------------------------------------------------------------------------------
// The fictional repository: an in-memory file system
// ---------------------------------------------------------------------------------------------------------------

const REPO_ROOT = '/home/dev/invoice-service';

/** Files that exist in the fictional checkout but whose content never matters to the story. */
const OTHER_FILES = [
  '.env.example',
  '.github/workflows/ci.yml',
  '.gitignore',
  'biome.json',
  'docker-compose.yml',
  'docs/api.md',
  'docs/architecture.md',
  'migrations/001_invoices.sql',
  'migrations/002_audit_log.sql',
  'migrations/003_invoice_currency_index.sql',
  'package-lock.json',
  'scripts/seed-dev-data.ts',
  'src/api/middleware.ts',
  'src/api/session-routes.ts',
  'src/logger.ts',
  'src/server.ts',
  'test/api/routes.test.ts',
  'test/api/serializers.test.ts',
  'test/api/session-routes.test.ts',
  'test/auth/session.test.ts',
  'test/billing/credit-note.test.ts',
  'test/billing/currency.test.ts',
  'test/db/invoice-repo.test.ts',
  'test/reports/revenue.test.ts',
  'tsconfig.build.json',
  'tsconfig.json',
  'vitest.config.ts',
];

interface EditResult {
  line: number;
  removed: number;
  added: number;
}

class FictionalRepo {
  private readonly files = new Map<string, string>();
  private readonly original = new Map<string, string>();

  add(path: string, content: string): void {
    this.files.set(path, content);
    this.original.set(path, content);
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  content(path: string): string {
    const text = this.files.get(path);
    if (text === undefined) {
      throw new Error(`fictional repo has no file ${path}`);
    }
    return text;
  }

  /** All paths, including files that have no content in the story. */
  allPaths(): string[] {
    return [...new Set([...this.files.keys(), ...OTHER_FILES])].sort();
  }

  contentPaths(): string[] {
    return [...this.files.keys()].sort();
  }

  /** 1-based line of the first line (from index `after`) containing `line`, and column of `column` from there on. */
  position(path: string, line: string, column = line, after = 0): { line: number; column: number } {
    const lines = linesOf(this.content(path));
    for (let index = after; index < lines.length; index++) {
      const text = lines[index] ?? '';
      if (text.includes(line)) {
        const offset = text.indexOf(column, text.indexOf(line));
        if (offset < 0) {
          throw new Error(`column text ${column} not found after ${line}`);
        }
        return { line: index + 1, column: offset + 1 };
      }
    }
    throw new Error(`${path} has no line containing ${line}`);
  }

  lineOf(path: string, line: string): number {
    return this.position(path, line).line;
  }

  replace(path: string, old: string, next: string): EditResult {
    const text = this.content(path);
    const first = text.indexOf(old);
    if (first < 0 || text.indexOf(old, first + 1) >= 0) {
      throw new Error(`edit of ${path}: old text must occur exactly once:\n${old}`);
    }
    this.files.set(path, text.slice(0, first) + next + text.slice(first + old.length));
    return {
      line: text.slice(0, first).split('\n').length,
      removed: Math.max(1, linesOf(old).length),
      added: Math.max(1, linesOf(next).length),
    };
  }

  write(path: string, content: string): boolean {
    const created = !this.files.has(path);
    this.files.set(path, content);
    return created;
  }

  gitStatus(): string {
    const rows: string[] = [];
    for (const path of this.contentPaths()) {
      const before = this.original.get(path);
      if (before === undefined) {
        rows.push(`?? ${path}`);
      } else if (before !== this.content(path)) {
        rows.push(` M ${path}`);
      }
    }
    return rows.sort((a, b) => (a.slice(3) < b.slice(3) ? -1 : 1)).join('\n');
  }

  diffStat(): string {
    const changes: Array<{ path: string; added: number; removed: number }> = [];
    for (const path of this.contentPaths()) {
      const before = this.original.get(path);
      const after = this.content(path);
      if (before === undefined || before === after) {
        continue;
      }
      const a = linesOf(before);
      const b = linesOf(after);
      const common = commonLines(a, b);
      changes.push({ path, added: b.length - common, removed: a.length - common });
    }
    // Bar scaling as git does it for an 80-column, non-terminal output (diff.c, show_stats).
    const nameWidth = Math.max(...changes.map((change) => change.path.length));
    const largest = Math.max(...changes.map((change) => change.added + change.removed));
    const countWidth = String(largest).length;
    let graphWidth = largest;
    if (nameWidth + countWidth + 6 + graphWidth > 80) {
      graphWidth = Math.min(graphWidth, Math.max(6, Math.floor((80 * 3) / 8) - countWidth - 6));
      graphWidth = Math.max(graphWidth, 80 - countWidth - 6 - nameWidth);
    }
    const scale = (n: number): number => (n === 0 ? 0 : 1 + Math.floor((n * (graphWidth - 1)) / largest));
    const rows = changes.map((change) => {
      let plus = change.added;
      let minus = change.removed;
      if (largest > graphWidth) {
        const total = Math.max(scale(plus + minus), plus > 0 && minus > 0 ? 2 : 0);
        if (plus < minus) {
          plus = scale(plus);
          minus = total - plus;
        } else {
          minus = scale(minus);
          plus = total - minus;
        }
      }
      const total = String(change.added + change.removed).padStart(countWidth);
      return ` ${change.path.padEnd(nameWidth)} | ${total} ${'+'.repeat(plus)}${'-'.repeat(minus)}`;
    });
    const added = changes.reduce((sum, change) => sum + change.added, 0);
    const removed = changes.reduce((sum, change) => sum + change.removed, 0);
    rows.push(` ${changes.length} files changed, ${added} insertions(+), ${removed} deletions(-)`);
    return rows.join('\n');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Tools: each returns the call and the output the fictional environment produced
// ---------------------------------------------------------------------------------------------------------------

class Tools {
  constructor(private readonly repo: FictionalRepo) {}

  list(dir: string): Call {
    const prefix = dir === '.' ? '' : `${dir.replace(/\/$/, '')}/`;
    const rows: string[] = [];
    const seenDirs = new Set<string>();
    for (const path of this.repo.allPaths()) {
      if (!path.startsWith(prefix)) {
        continue;
      }
      const parts = path.slice(prefix.length).split('/');
      for (let depth = 0; depth < parts.length - 1; depth++) {
        const key = parts.slice(0, depth + 1).join('/');
        if (!seenDirs.has(key)) {
          seenDirs.add(key);
          rows.push(`${'  '.repeat(depth)}${parts[depth]}/`);
        }
      }
      rows.push(`${'  '.repeat(parts.length - 1)}${parts.at(-1)}`);
    }
    const files = rows.filter((row) => !row.endsWith('/')).length;
    const output = `${rows.join('\n')}\n\n${seenDirs.size} directories, ${files} files (node_modules, .git and dist not shown)`;
    return { name: 'list_files', args: { dir }, output };
  }

  read(path: string): Call {
    if (!this.repo.has(path)) {
      return {
        name: 'read_file',
        args: { path },
        output: `Error: ENOENT: no such file or directory, open '${REPO_ROOT}/${path}'`,
      };
    }
    const numbered = linesOf(this.repo.content(path)).map((line, index) => `${String(index + 1).padStart(3)}\t${line}`);
    return { name: 'read_file', args: { path }, output: numbered.join('\n') };
  }

  search(pattern: string, path: string): Call {
    const regex = new RegExp(pattern);
    const prefix = path === '.' ? '' : `${path.replace(/\/$/, '')}/`;
    const hits: string[] = [];
    for (const file of this.repo.contentPaths()) {
      if (!file.startsWith(prefix) && file !== path) {
        continue;
      }
      linesOf(this.repo.content(file)).forEach((line, index) => {
        if (regex.test(line)) {
          hits.push(`${file}:${index + 1}:${line}`);
        }
      });
    }
    const files = new Set(hits.map((hit) => hit.split(':')[0])).size;
    const output =
      hits.length === 0
        ? 'No matches found.'
        : `${hits.join('\n')}\n\n${hits.length} matches in ${files} file${files === 1 ? '' : 's'}`;
    return { name: 'search', args: { pattern, path }, output };
  }

  edit(path: string, old: string, next: string): Call {
    const result = this.repo.replace(path, old, next);
    const end = result.line + result.removed - 1;
    const range = result.removed === 1 ? `line ${result.line}` : `lines ${result.line}-${end}`;
    const output = `Edited ${path}: replaced ${range} (${result.removed} line${result.removed === 1 ? '' : 's'}) with ${result.added} line${result.added === 1 ? '' : 's'}.`;
    return { name: 'edit_file', args: { path, old, new: next }, output };
  }

  write(path: string, content: string): Call {
    const created = this.repo.write(path, content);
    const output = `${created ? 'Created' : 'Overwrote'} ${path} (${linesOf(content).length} lines, ${content.length} bytes).`;
    return { name: 'write_file', args: { path, content }, output };
  }

  bash(command: string, output: string, exitCode = 0): Call {
    return { name: 'bash', args: { command }, output: `${output}${output === '' ? '' : '\n'}[exit code: ${exitCode}]` };
  }

  test(command: string, output: string, exitCode: number): Call {
    return { name: 'run_tests', args: { command }, output: `${output}\n[exit code: ${exitCode}]` };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Fictional repository contents (original text for this project)
// ---------------------------------------------------------------------------------------------------------------

function packageJson(): string {
  return code`
{
  "name": "invoice-service",
  "version": "2.3.1",
  "private": true,
  "description": "Invoicing API and batch jobs for Larkspur Cloud billing",
  "type": "module",
  "engines": {
    "node": ">=20.11"
  },
  "bin": {
    "recalculate-invoices": "dist/cli/recalculate.js"
  },
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "start": "node dist/server.js",
    "dev": "tsx watch src/server.ts",
    "test": "vitest run",
    "test:watch": "vitest",
    "typecheck": "tsc --noEmit",
    "lint": "biome check src test",
    "recalculate": "tsx src/cli/recalculate.ts",
    "db:migrate": "node-pg-migrate up -m migrations"
  },
  "dependencies": {
    "pg": "^8.13.1"
  },
  "devDependencies": {
    "@biomejs/biome": "^2.2.4",
    "@types/node": "^20.17.10",
    "@types/pg": "^8.11.10",
    "node-pg-migrate": "^7.8.0",
    "tsx": "^4.19.2",
    "typescript": "^5.7.2",
    "vitest": "^4.0.8"
  }
}
`;
}

function configTs(): string {
  return code`
import type { RoundingMode } from './billing/currency';

export interface BillingConfig {
  /** Banker's rounding is a finance requirement (FIN-1182); do not switch to half-up. */
  roundingMode: RoundingMode;
  /** 'per-line' rounds the tax of every line (what the PDFs print); 'per-invoice' rounds the sum once. */
  taxRounding: 'per-line' | 'per-invoice';
  defaultCurrency: string;
  maxLineItems: number;
  paymentTermsDays: number;
}

export interface AppConfig {
  billing: BillingConfig;
  api: { port: number; basePath: string; requestTimeoutMs: number };
  session: { ttlMinutes: number; rotateAfterMinutes: number; cookieName: string };
  /** recalculateBatchSize: invoices loaded per query by recalculate-invoices. */
  cli: { recalculateBatchSize: number; auditActor: string };
}

function readInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') {
    return fallback;
  }
  const value = Number.parseInt(raw, 10);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(\`\${name} must be a positive integer, got "\${raw}"\`);
  }
  return value;
}

export const config: AppConfig = {
  billing: {
    roundingMode: 'half-even',
    taxRounding: 'per-line',
    defaultCurrency: 'EUR',
    maxLineItems: readInt('INVOICE_MAX_LINE_ITEMS', 500),
    paymentTermsDays: 30,
  },
  api: { port: readInt('PORT', 8080), basePath: '/v2', requestTimeoutMs: 15_000 },
  session: { ttlMinutes: readInt('SESSION_TTL_MINUTES', 45), rotateAfterMinutes: 15, cookieName: 'inv_sid' },
  cli: { recalculateBatchSize: readInt('RECALC_BATCH_SIZE', 250), auditActor: 'cli:recalculate-invoices' },
};
`;
}

const ZERO_DECIMAL = ['CLP', 'ISK', 'JPY', 'KRW', 'UGX', 'VND'];
const THREE_DECIMAL = ['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND'];
const TWO_DECIMAL = ['AUD', 'CAD', 'CHF', 'CZK', 'DKK', 'EUR', 'GBP', 'NOK', 'NZD', 'PLN', 'SEK', 'USD'];
const ALL_CURRENCIES = [...ZERO_DECIMAL, ...THREE_DECIMAL, ...TWO_DECIMAL].sort();

function decimalsOf(currency: string): number {
  if (ZERO_DECIMAL.includes(currency)) {
    return 0;
  }
  return THREE_DECIMAL.includes(currency) ? 3 : 2;
}

function quoted(codes: readonly string[]): string {
  return codes.map((currencyCode) => `'${currencyCode}'`).join(', ');
}

function currencyTs(): string {
  return code`
/**
 * Currency metadata and rounding. Amounts are numbers in major units (12.5 means 12.50 EUR); everything that leaves
 * the billing code must be rounded to the currency's minor units (the ISO 4217 exponent).
 */

export type RoundingMode = 'half-even' | 'half-up';

/** Currencies without minor units (exponent 0). */
export const ZERO_DECIMAL_CURRENCIES = [${quoted(ZERO_DECIMAL)}] as const;

/** Currencies with three decimals (fils, baisa, millimes; exponent 3). */
export const THREE_DECIMAL_CURRENCIES = [${quoted(THREE_DECIMAL)}] as const;

/** Currencies with the usual two decimals. */
export const TWO_DECIMAL_CURRENCIES = [
${TWO_DECIMAL.map((currencyCode) => `  '${currencyCode}',`).join('\n')}
] as const;

export const SUPPORTED_CURRENCIES: readonly string[] = [
  ...TWO_DECIMAL_CURRENCIES,
  ...ZERO_DECIMAL_CURRENCIES,
  ...THREE_DECIMAL_CURRENCIES,
].sort();

export class UnsupportedCurrencyError extends Error {
  constructor(readonly currency: string) {
    super(\`Unsupported currency: \${currency}\`);
    this.name = 'UnsupportedCurrencyError';
  }
}

export function isSupportedCurrency(code: string): boolean {
  return SUPPORTED_CURRENCIES.includes(code.toUpperCase());
}

/** Number of decimals of the currency's minor unit: 0 (JPY), 2 (EUR) or 3 (KWD). */
export function minorUnitsFor(currency: string): 0 | 2 | 3 {
  const code = currency.toUpperCase();
  if (!SUPPORTED_CURRENCIES.includes(code)) {
    throw new UnsupportedCurrencyError(currency);
  }
  if ((ZERO_DECIMAL_CURRENCIES as readonly string[]).includes(code)) {
    return 0;
  }
  if ((THREE_DECIMAL_CURRENCIES as readonly string[]).includes(code)) {
    return 3;
  }
  return 2;
}

// Products like 1.005 * 100 come out as 100.49999999999999; anything this close to .5 counts as a tie.
const TIE_EPSILON = 1e-9;

export function roundHalfEven(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const scaled = value * factor;
  const floor = Math.floor(scaled);
  if (Math.abs(scaled - floor - 0.5) < TIE_EPSILON) {
    return (floor % 2 === 0 ? floor : floor + 1) / factor;
  }
  return Math.round(scaled) / factor;
}

export function roundHalfUp(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return (Math.sign(value) * Math.round(Math.abs(value) * factor + TIE_EPSILON)) / factor;
}

/** Rounds an amount to the minor units of \`currency\`. Billing code should not round any other way. */
export function roundToCurrency(amount: number, currency: string, mode: RoundingMode = 'half-even'): number {
  const decimals = minorUnitsFor(currency);
  return mode === 'half-up' ? roundHalfUp(amount, decimals) : roundHalfEven(amount, decimals);
}

/** Integer amount in minor units: 12.34 EUR -> 1234, 412.346 KWD -> 412346, 4072 JPY -> 4072. */
export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(roundToCurrency(amount, currency) * 10 ** minorUnitsFor(currency));
}

export function formatAmount(amount: number, currency: string, locale = 'en-GB'): string {
  const decimals = minorUnitsFor(currency);
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency,
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  }).format(amount);
}
`;
}

function taxTs(): string {
  return code`
import { config } from '../config';

export type TaxRegion = 'DE' | 'FR' | 'NL' | 'GB' | 'CH' | 'US-NY' | 'JP' | 'KW' | 'BH' | 'OM' | 'NONE';
export type TaxCategory = 'standard' | 'reduced' | 'zero' | 'exempt';

interface RegionRates {
  standard: number;
  reduced: number;
  label: string;
}

const RATES: Record<TaxRegion, RegionRates> = {
  DE: { standard: 0.19, reduced: 0.07, label: 'USt' },
  FR: { standard: 0.2, reduced: 0.055, label: 'TVA' },
  NL: { standard: 0.21, reduced: 0.09, label: 'BTW' },
  GB: { standard: 0.2, reduced: 0.05, label: 'VAT' },
  CH: { standard: 0.081, reduced: 0.026, label: 'MWST' },
  'US-NY': { standard: 0.08875, reduced: 0.08875, label: 'Sales tax' },
  JP: { standard: 0.1, reduced: 0.08, label: 'Consumption tax' },
  KW: { standard: 0, reduced: 0, label: 'None' },
  BH: { standard: 0.1, reduced: 0, label: 'VAT' },
  OM: { standard: 0.05, reduced: 0, label: 'VAT' },
  NONE: { standard: 0, reduced: 0, label: 'None' },
};

export interface LineTax {
  category: TaxCategory;
  rate: number;
  /** Rounded when config.billing.taxRounding is 'per-line', unrounded otherwise. */
  amount: number;
  label: string;
}

export function isTaxRegion(value: string): value is TaxRegion {
  return Object.hasOwn(RATES, value);
}

export function rateFor(region: TaxRegion, category: TaxCategory): number {
  const rates = RATES[region];
  switch (category) {
    case 'standard':
      return rates.standard;
    case 'reduced':
      return rates.reduced;
    case 'zero':
    case 'exempt':
      return 0;
  }
}

export function labelFor(region: TaxRegion): string {
  return RATES[region].label;
}

function roundTax(amount: number): number {
  // Every region we launched with uses cents.
  return Math.round(amount * 100) / 100;
}

/** Tax for one invoice line. \`net\` is the line amount after discount. */
export function computeLineTax(net: number, category: TaxCategory, region: TaxRegion): LineTax {
  const rate = rateFor(region, category);
  const raw = net * rate;
  return {
    category,
    rate,
    amount: config.billing.taxRounding === 'per-line' ? roundTax(raw) : raw,
    label: labelFor(region),
  };
}

/** Sums tax per "label rate" key, e.g. { 'USt 19%': 9.31, 'USt 7%': 0.84 }. Amounts are not rounded here. */
export function summarizeTax(lines: readonly LineTax[]): Record<string, number> {
  const breakdown: Record<string, number> = {};
  for (const line of lines) {
    if (line.rate === 0) {
      continue;
    }
    const key = \`\${line.label} \${formatRate(line.rate)}\`;
    breakdown[key] = (breakdown[key] ?? 0) + line.amount;
  }
  return breakdown;
}

export function formatRate(rate: number): string {
  return \`\${Number((rate * 100).toFixed(3))}%\`;
}
`;
}

function invoiceTs(): string {
  return code`
import { config } from '../config';
import { isSupportedCurrency, type RoundingMode, UnsupportedCurrencyError } from './currency';
import { computeLineTax, isTaxRegion, type LineTax, summarizeTax, type TaxCategory, type TaxRegion } from './tax';

// Money helpers (half-even rounding, FIN-1182) live in src/utils/money.ts.

export interface LineItemInput {
  sku: string;
  description: string;
  quantity: number;
  /** Price of one unit in major units of the invoice currency, before tax and discount. */
  unitPrice: number;
  taxCategory?: TaxCategory;
  /** Line discount in percent, 0 to 100. */
  discountPercent?: number;
}

export interface InvoiceInput {
  id: string;
  customerId: string;
  /** ISO 4217 code, upper case. */
  currency: string;
  region: TaxRegion;
  issuedAt: string;
  lines: LineItemInput[];
}

export interface TotalsOptions {
  /** Adds \`taxBreakdown\` (tax per label and rate) to the result. */
  includeTaxBreakdown?: boolean;
  /** Overrides config.billing.roundingMode (tests and the finance export). */
  roundingMode?: RoundingMode;
}

export interface LineTotals {
  sku: string;
  quantity: number;
  /** Amount after discount, before tax. */
  net: number;
  discount: number;
  tax: number;
  taxRate: number;
  /** net + tax */
  gross: number;
}

export interface InvoiceTotals {
  invoiceId: string;
  currency: string;
  lines: LineTotals[];
  subtotal: number;
  discountTotal: number;
  taxTotal: number;
  total: number;
  taxBreakdown?: Record<string, number>;
}

export class InvoiceValidationError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = 'InvoiceValidationError';
  }
}

function roundMoney(value: number, mode: RoundingMode = config.billing.roundingMode): number {
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  const isTie = Math.abs(scaled - floor - 0.5) < 1e-9;
  if (isTie && mode === 'half-even') {
    return (floor % 2 === 0 ? floor : floor + 1) / 100;
  }
  return Math.round(scaled) / 100;
}

export function validateInvoice(input: InvoiceInput): void {
  if (input.id.trim() === '') {
    throw new InvoiceValidationError('Invoice id is required', 'id');
  }
  if (!isSupportedCurrency(input.currency)) {
    throw new UnsupportedCurrencyError(input.currency);
  }
  if (!isTaxRegion(input.region)) {
    throw new InvoiceValidationError(\`Unknown tax region: \${input.region}\`, 'region');
  }
  if (input.lines.length === 0) {
    throw new InvoiceValidationError('Invoice must have at least one line', 'lines');
  }
  if (input.lines.length > config.billing.maxLineItems) {
    throw new InvoiceValidationError(
      \`Invoice has \${input.lines.length} lines; the maximum is \${config.billing.maxLineItems}\`,
      'lines',
    );
  }
  input.lines.forEach((line, index) => {
    const field = \`lines[\${index}]\`;
    if (!Number.isFinite(line.quantity) || line.quantity <= 0) {
      throw new InvoiceValidationError(\`Line \${index + 1}: quantity must be positive\`, \`\${field}.quantity\`);
    }
    const discount = line.discountPercent ?? 0;
    if (discount < 0 || discount > 100) {
      throw new InvoiceValidationError(\`Line \${index + 1}: discount must be 0-100\`, \`\${field}.discountPercent\`);
    }
  });
}

interface ComputedLine {
  totals: LineTotals;
  tax: LineTax;
}

function computeLine(line: LineItemInput, input: InvoiceInput, mode: RoundingMode): ComputedLine {
  const listAmount = line.quantity * line.unitPrice;
  const discount = roundMoney(listAmount * ((line.discountPercent ?? 0) / 100), mode);
  const net = roundMoney(listAmount - discount, mode);
  const tax = computeLineTax(net, line.taxCategory ?? 'standard', input.region);
  const taxAmount = roundMoney(tax.amount, mode);
  return {
    totals: {
      sku: line.sku,
      quantity: line.quantity,
      net,
      discount,
      tax: taxAmount,
      taxRate: tax.rate,
      gross: roundMoney(net + taxAmount, mode),
    },
    tax,
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/**
 * Computes line and invoice totals. Public API: re-exported by src/sdk/index.ts, which the mobile app pins, so the
 * signature must stay stable.
 */
export function calculateInvoiceTotals(input: InvoiceInput, options: TotalsOptions = {}): InvoiceTotals {
  validateInvoice(input);
  const mode = options.roundingMode ?? config.billing.roundingMode;
  const computed = input.lines.map((line) => computeLine(line, input, mode));
  const lines = computed.map((entry) => entry.totals);

  const subtotal = roundMoney(sum(lines.map((line) => line.net)), mode);
  const discountTotal = roundMoney(sum(lines.map((line) => line.discount)), mode);
  const taxTotal =
    config.billing.taxRounding === 'per-line'
      ? roundMoney(sum(lines.map((line) => line.tax)), mode)
      : roundMoney(sum(computed.map((entry) => entry.tax.amount)), mode);
  const total = roundMoney(subtotal + taxTotal, mode);

  const result: InvoiceTotals = {
    invoiceId: input.id,
    currency: input.currency,
    lines,
    subtotal,
    discountTotal,
    taxTotal,
    total,
  };
  if (options.includeTaxBreakdown) {
    const breakdown = summarizeTax(computed.map((entry) => entry.tax));
    result.taxBreakdown = Object.fromEntries(
      Object.entries(breakdown).map(([key, amount]) => [key, roundMoney(amount, mode)]),
    );
  }
  return result;
}
`;
}

function creditNoteTs(): string {
  return code`
import type { InvoiceTotals } from './invoice';
import { computeLineTax, type TaxCategory, type TaxRegion } from './tax';

export interface CreditNoteLine {
  sku: string;
  /** Net amount to credit, before tax. */
  amount: number;
  taxCategory: TaxCategory;
  reason: string;
}

export interface CreditNote {
  id: string;
  invoiceId: string;
  currency: string;
  lines: CreditNoteLine[];
  net: number;
  tax: number;
  total: number;
}

export class CreditNoteError extends Error {
  override name = 'CreditNoteError';
}

/** Creates a credit note against an issued invoice. The credited total may not exceed the invoice total. */
export function createCreditNote(
  id: string,
  invoice: InvoiceTotals,
  region: TaxRegion,
  lines: CreditNoteLine[],
): CreditNote {
  if (lines.length === 0) {
    throw new CreditNoteError(\`Credit note \${id} has no lines\`);
  }
  let net = 0;
  let tax = 0;
  for (const line of lines) {
    if (line.amount <= 0) {
      throw new CreditNoteError(\`Credit note \${id}: line \${line.sku} must credit a positive amount\`);
    }
    net += line.amount;
    tax += computeLineTax(line.amount, line.taxCategory, region).amount;
  }
  const total = Math.round((net + tax) * 100) / 100;
  if (total > invoice.total + 0.005) {
    throw new CreditNoteError(\`Credit note \${id} (\${total}) exceeds invoice \${invoice.invoiceId} (\${invoice.total})\`);
  }
  return { id, invoiceId: invoice.invoiceId, currency: invoice.currency, lines, net, tax, total };
}
`;
}

function serializersTs(): string {
  return code`
import { UnsupportedCurrencyError } from '../billing/currency';
import { type InvoiceTotals, InvoiceValidationError, type LineTotals } from '../billing/invoice';
import { formatRate } from '../billing/tax';

/** Amounts go over the wire as strings, so clients never see float artefacts like 0.30000000000000004. */
export interface SerializedLine {
  sku: string;
  quantity: number;
  net: string;
  discount: string;
  tax: string;
  taxRate: string;
  gross: string;
}

export interface SerializedTotals {
  invoiceId: string;
  currency: string;
  lines: SerializedLine[];
  subtotal: string;
  discountTotal: string;
  taxTotal: string;
  total: string;
  taxBreakdown?: Record<string, string>;
}

export function serializeTotals(totals: InvoiceTotals): SerializedTotals {
  const amount = (value: number): string => value.toFixed(2);
  const line = (entry: LineTotals): SerializedLine => ({
    sku: entry.sku,
    quantity: entry.quantity,
    net: amount(entry.net),
    discount: amount(entry.discount),
    tax: amount(entry.tax),
    taxRate: formatRate(entry.taxRate),
    gross: amount(entry.gross),
  });
  const result: SerializedTotals = {
    invoiceId: totals.invoiceId,
    currency: totals.currency,
    lines: totals.lines.map(line),
    subtotal: amount(totals.subtotal),
    discountTotal: amount(totals.discountTotal),
    taxTotal: amount(totals.taxTotal),
    total: amount(totals.total),
  };
  if (totals.taxBreakdown) {
    result.taxBreakdown = Object.fromEntries(
      Object.entries(totals.taxBreakdown).map(([key, value]) => [key, amount(value)]),
    );
  }
  return result;
}

export function serializeError(error: unknown): { error: string; field?: string; code?: string } {
  if (error instanceof InvoiceValidationError) {
    return { error: error.message, field: error.field, code: 'invalid_invoice' };
  }
  if (error instanceof UnsupportedCurrencyError) {
    return { error: error.message, field: 'currency', code: 'unsupported_currency' };
  }
  return { error: 'Internal error' };
}
`;
}

function routesTs(): string {
  return code`
import type { IncomingHttpHeaders } from 'node:http';
import { UnsupportedCurrencyError } from '../billing/currency';
import { calculateInvoiceTotals, type InvoiceInput, InvoiceValidationError } from '../billing/invoice';
import { computeLineTax, isTaxRegion, type TaxCategory } from '../billing/tax';
import { config } from '../config';
import { createInvoiceRepo } from '../db/invoice-repo';
import { serializeError, serializeTotals } from './serializers';

export type Method = 'GET' | 'POST';

export interface ApiRequest {
  method: Method;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: ApiRequest) => Promise<ApiResponse> | ApiResponse;

export interface Route {
  method: Method;
  /** Path relative to config.api.basePath; \`:name\` segments become params. */
  pattern: string;
  auth: boolean;
  handler: Handler;
}

const repo = createInvoiceRepo();

function badRequest(error: unknown): ApiResponse {
  return { status: 400, body: serializeError(error) };
}

function isClientError(error: unknown): boolean {
  return error instanceof InvoiceValidationError || error instanceof UnsupportedCurrencyError;
}

async function getInvoice(req: ApiRequest): Promise<ApiResponse> {
  const id = req.params.id ?? '';
  const stored = await repo.findById(id);
  if (!stored) {
    return { status: 404, body: { error: \`Invoice \${id} not found\` } };
  }
  return {
    status: 200,
    body: {
      id: stored.input.id,
      customerId: stored.input.customerId,
      status: stored.status,
      issuedAt: stored.input.issuedAt,
      totals: serializeTotals(calculateInvoiceTotals(stored.input)),
    },
  };
}

function previewTotals(req: ApiRequest): ApiResponse {
  try {
    const totals = calculateInvoiceTotals(req.body as InvoiceInput, {
      includeTaxBreakdown: req.query.get('breakdown') === '1',
    });
    return { status: 200, body: serializeTotals(totals) };
  } catch (error) {
    if (isClientError(error)) {
      return badRequest(error);
    }
    throw error;
  }
}

async function createInvoice(req: ApiRequest): Promise<ApiResponse> {
  const input = req.body as InvoiceInput;
  let totals: ReturnType<typeof calculateInvoiceTotals>;
  try {
    totals = calculateInvoiceTotals(input);
  } catch (error) {
    if (isClientError(error)) {
      return badRequest(error);
    }
    throw error;
  }
  if (await repo.findById(input.id)) {
    return { status: 409, body: { error: \`Invoice \${input.id} already exists\` } };
  }
  await repo.insert(input, totals);
  return {
    status: 201,
    headers: { location: \`\${config.api.basePath}/invoices/\${encodeURIComponent(input.id)}\` },
    body: serializeTotals(totals),
  };
}

function taxPreview(req: ApiRequest): ApiResponse {
  const net = Number(req.query.get('net'));
  const region = req.query.get('region') ?? '';
  const category = (req.query.get('category') ?? 'standard') as TaxCategory;
  if (!Number.isFinite(net) || !isTaxRegion(region)) {
    return { status: 400, body: { error: 'Query parameters net (number) and region are required' } };
  }
  const tax = computeLineTax(net, category, region);
  return { status: 200, body: { ...tax, amount: tax.amount.toFixed(2) } };
}

export const routes: Route[] = [
  { method: 'GET', pattern: '/health', auth: false, handler: () => ({ status: 200, body: { ok: true } }) },
  { method: 'GET', pattern: '/invoices/:id', auth: true, handler: getInvoice },
  { method: 'POST', pattern: '/invoices', auth: true, handler: createInvoice },
  { method: 'POST', pattern: '/invoices/:id/totals', auth: true, handler: previewTotals },
  { method: 'GET', pattern: '/tax/preview', auth: true, handler: taxPreview },
];
`;
}

function sessionTs(): string {
  return code`
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { config } from '../config';

// SECURITY FREEZE (SEC-204): this file is under security review until 2.4.0 ships.
// Changes need sign-off from the security team.

export interface Session {
  id: string;
  userId: string;
  issuedAt: number;
  expiresAt: number;
}

const revoked = new Set<string>();

function secret(): string {
  const value = process.env.SESSION_SECRET;
  if (value === undefined || value.length < 32) {
    throw new Error('SESSION_SECRET must be set to at least 32 characters');
  }
  return value;
}

function sign(payload: string): string {
  return createHmac('sha256', secret()).update(payload).digest('base64url');
}

export function createSession(userId: string, now = Date.now()): { session: Session; token: string } {
  const session: Session = {
    id: randomBytes(16).toString('hex'),
    userId,
    issuedAt: now,
    expiresAt: now + config.session.ttlMinutes * 60_000,
  };
  const payload = Buffer.from(JSON.stringify(session)).toString('base64url');
  return { session, token: \`\${payload}.\${sign(payload)}\` };
}

export function verifySession(token: string, now = Date.now()): Session | undefined {
  const [payload, signature] = token.split('.');
  if (!payload || !signature) {
    return undefined;
  }
  const expected = Buffer.from(sign(payload));
  const actual = Buffer.from(signature);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    return undefined;
  }
  const session = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Session;
  if (session.expiresAt <= now || revoked.has(session.id)) {
    return undefined;
  }
  return session;
}

export function shouldRotate(session: Session, now = Date.now()): boolean {
  return now - session.issuedAt > config.session.rotateAfterMinutes * 60_000;
}

export function secondsUntilExpiry(session: Session, now = Date.now()): number {
  return Math.max(0, Math.round((session.expiresAt - now) / 1000));
}

export function revokeSession(id: string): void {
  revoked.add(id);
}
`;
}

function revenueTs(): string {
  return code`
import type { InvoiceTotals } from '../billing/invoice';

export interface RevenueRow {
  month: string;
  currency: string;
  invoices: number;
  net: number;
  tax: number;
  gross: number;
}

/** Groups invoice totals by issue month (YYYY-MM) and currency. */
export function monthlyRevenue(entries: ReadonlyArray<{ issuedAt: string; totals: InvoiceTotals }>): RevenueRow[] {
  const rows = new Map<string, RevenueRow>();
  for (const { issuedAt, totals } of entries) {
    const month = issuedAt.slice(0, 7);
    const key = \`\${month}|\${totals.currency}\`;
    const row = rows.get(key) ?? { month, currency: totals.currency, invoices: 0, net: 0, tax: 0, gross: 0 };
    row.invoices += 1;
    row.net += totals.subtotal;
    row.tax += totals.taxTotal;
    row.gross += totals.total;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => a.month.localeCompare(b.month) || a.currency.localeCompare(b.currency));
}

/** CSV for the monthly finance export. Amounts are written with two decimals. */
export function revenueCsv(rows: readonly RevenueRow[]): string {
  const header = 'month,currency,invoices,net,tax,gross';
  const body = rows.map((row) =>
    [row.month, row.currency, row.invoices, row.net.toFixed(2), row.tax.toFixed(2), row.gross.toFixed(2)].join(','),
  );
  return [header, ...body].join('\n');
}

export function averageInvoiceValue(row: RevenueRow): string {
  return row.invoices === 0 ? '0.00' : (row.gross / row.invoices).toFixed(2);
}
`;
}

function sdkIndexTs(): string {
  return code`
/**
 * Public SDK entry point, published as @larkspur/invoice-sdk. The mobile app pins this API: changing an exported
 * signature needs a major version and a heads-up to the mobile team.
 */
export { formatAmount, minorUnitsFor, SUPPORTED_CURRENCIES } from '../billing/currency';
export {
  calculateInvoiceTotals,
  type InvoiceInput,
  type InvoiceTotals,
  InvoiceValidationError,
  type LineItemInput,
  type LineTotals,
  type TotalsOptions,
} from '../billing/invoice';
export type { TaxCategory, TaxRegion } from '../billing/tax';
`;
}

function dbClientTs(): string {
  return code`
import pg from 'pg';

export interface Db {
  query<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

let pool: pg.Pool | undefined;

/** Shared connection pool, created on first use from DATABASE_URL. */
export function getDb(): Db {
  pool ??= new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const current = pool;
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      const result = await current.query(sql, [...params]);
      return result.rows as T[];
    },
  };
}
`;
}

function invoiceRepoTs(): string {
  return code`
import type { InvoiceInput, InvoiceTotals } from '../billing/invoice';
import { type Db, getDb } from './client';

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void';

export interface StoredInvoice {
  input: InvoiceInput;
  status: InvoiceStatus;
  subtotal: number;
  taxTotal: number;
  total: number;
  updatedAt: string;
}

export interface ListOpenQuery {
  limit: number;
  /** Cursor from the previous page. */
  after?: string;
  since?: string;
  currency?: string;
}

export interface InvoicePage {
  items: StoredInvoice[];
  nextCursor?: string;
}

export interface InvoiceRepo {
  findById(id: string): Promise<StoredInvoice | undefined>;
  listOpen(query: ListOpenQuery): Promise<InvoicePage>;
  insert(input: InvoiceInput, totals: InvoiceTotals): Promise<void>;
  save(id: string, totals: InvoiceTotals): Promise<void>;
}

interface InvoiceRow {
  id: string;
  body: InvoiceInput;
  status: InvoiceStatus;
  subtotal: string;
  tax_total: string;
  total: string;
  updated_at: Date;
}

function fromRow(row: InvoiceRow): StoredInvoice {
  return {
    input: row.body,
    status: row.status,
    subtotal: Number(row.subtotal),
    taxTotal: Number(row.tax_total),
    total: Number(row.total),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createInvoiceRepo(db: Db = getDb()): InvoiceRepo {
  return {
    async findById(id) {
      const rows = await db.query<InvoiceRow>('SELECT * FROM invoices WHERE id = $1', [id]);
      const row = rows[0];
      return row ? fromRow(row) : undefined;
    },
    async listOpen(query) {
      const rows = await db.query<InvoiceRow>(
        \`SELECT * FROM invoices
          WHERE status = 'open' AND ($1::text IS NULL OR id > $1) AND ($2::date IS NULL OR issued_at >= $2)
            AND ($3::text IS NULL OR currency = $3)
          ORDER BY id LIMIT $4\`,
        [query.after ?? null, query.since ?? null, query.currency ?? null, query.limit],
      );
      const last = rows.at(-1);
      return { items: rows.map(fromRow), nextCursor: rows.length === query.limit && last ? last.id : undefined };
    },
    async insert(input, totals) {
      await db.query(
        'INSERT INTO invoices (id, body, status, currency, issued_at, subtotal, tax_total, total) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [input.id, input, 'open', input.currency, input.issuedAt, totals.subtotal, totals.taxTotal, totals.total],
      );
    },
    async save(id, totals) {
      await db.query(
        'UPDATE invoices SET subtotal = $2, tax_total = $3, total = $4, updated_at = now() WHERE id = $1',
        [id, totals.subtotal, totals.taxTotal, totals.total],
      );
    },
  };
}
`;
}

function auditLogTs(): string {
  return code`
import { type Db, getDb } from '../db/client';

export interface AuditEntry {
  actor: string;
  action: string;
  invoiceId: string;
  before: number;
  after: number;
}

export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
}

export function createAuditLog(db: Db = getDb()): AuditLog {
  return {
    async record(entry) {
      await db.query(
        'INSERT INTO audit_log (actor, action, subject, before, after, at) VALUES ($1, $2, $3, $4, $5, now())',
        [entry.actor, entry.action, entry.invoiceId, entry.before, entry.after],
      );
    },
  };
}
`;
}

function recalculateTs(): string {
  return code`
import { parseArgs } from 'node:util';
import { type AuditLog, createAuditLog } from '../audit/audit-log';
import { calculateInvoiceTotals, type InvoiceTotals } from '../billing/invoice';
import { config } from '../config';
import { createInvoiceRepo, type InvoiceRepo, type StoredInvoice } from '../db/invoice-repo';

export const USAGE = \`Usage: recalculate-invoices [options]

Recomputes the totals of open invoices and saves the ones that changed.

Options:
  --batch-size <n>   invoices loaded per query, 1-5000 (default \${config.cli.recalculateBatchSize})
  --since <date>     only invoices issued on or after this date (YYYY-MM-DD)
  --currency <code>  only invoices in this currency
  --force            save every invoice, even when its totals did not change
  -h, --help         show this help
\`;

export interface RecalculateOptions {
  batchSize: number;
  since?: string;
  currency?: string;
  force: boolean;
  help: boolean;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseRecalculateArgs(argv: string[]): RecalculateOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'batch-size': { type: 'string' },
      since: { type: 'string' },
      currency: { type: 'string' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });

  const rawBatch = values['batch-size'];
  const batchSize = rawBatch === undefined ? config.cli.recalculateBatchSize : Number(rawBatch);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 5000) {
    throw new UsageError(\`--batch-size must be an integer between 1 and 5000, got \${rawBatch}\`);
  }
  if (values.since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values.since)) {
    throw new UsageError(\`--since must be a date in the form YYYY-MM-DD, got \${values.since}\`);
  }
  return {
    batchSize,
    since: values.since,
    currency: values.currency?.toUpperCase(),
    force: values.force,
    help: values.help,
  };
}

function totalsDiffer(stored: StoredInvoice, next: InvoiceTotals): boolean {
  return stored.total !== next.total || stored.subtotal !== next.subtotal || stored.taxTotal !== next.taxTotal;
}

export interface RecalculateDeps {
  repo: InvoiceRepo;
  audit: AuditLog;
  out: (line: string) => void;
}

export interface RecalculateResult {
  scanned: number;
  changed: number;
  saved: number;
}

export async function recalculateInvoices(
  options: RecalculateOptions,
  deps: RecalculateDeps,
): Promise<RecalculateResult> {
  const result: RecalculateResult = { scanned: 0, changed: 0, saved: 0 };
  let cursor: string | undefined;
  do {
    const page = await deps.repo.listOpen({
      limit: options.batchSize,
      after: cursor,
      since: options.since,
      currency: options.currency,
    });
    for (const stored of page.items) {
      result.scanned += 1;
      const next = calculateInvoiceTotals(stored.input);
      const changed = totalsDiffer(stored, next);
      if (changed) {
        result.changed += 1;
      }
      if (!changed && !options.force) {
        continue;
      }
      await deps.repo.save(stored.input.id, next);
      await deps.audit.record({
        actor: config.cli.auditActor,
        action: 'invoice.recalculated',
        invoiceId: stored.input.id,
        before: stored.total,
        after: next.total,
      });
      result.saved += 1;
    }
    cursor = page.nextCursor;
    deps.out(\`scanned \${result.scanned} invoices, \${result.changed} changed so far\`);
  } while (cursor !== undefined);
  return result;
}

export async function main(argv: string[] = process.argv.slice(2), deps?: RecalculateDeps): Promise<number> {
  let options: RecalculateOptions;
  try {
    options = parseRecalculateArgs(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(USAGE);
    return 64;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const resolved = deps ?? { repo: createInvoiceRepo(), audit: createAuditLog(), out: (line) => console.log(line) };
  const result = await recalculateInvoices(options, resolved);
  resolved.out(
    \`done: \${result.saved} invoices saved (\${result.changed} with changed totals, \${result.scanned} scanned)\`,
  );
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === \`file://\${process.argv[1]}\`) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
`;
}

function invoiceTestTs(): string {
  return code`
import { describe, expect, it } from 'vitest';
import { UnsupportedCurrencyError } from '../../src/billing/currency';
import {
  calculateInvoiceTotals,
  type InvoiceInput,
  InvoiceValidationError,
  type LineItemInput,
} from '../../src/billing/invoice';

function line(overrides: Partial<LineItemInput> = {}): LineItemInput {
  return { sku: 'PLAN-PRO', description: 'Pro plan (monthly)', quantity: 1, unitPrice: 49, ...overrides };
}

function invoice(overrides: Partial<InvoiceInput> = {}): InvoiceInput {
  return {
    id: 'INV-TEST-1',
    customerId: 'cus_1001',
    currency: 'EUR',
    region: 'DE',
    issuedAt: '2024-03-01',
    lines: [line()],
    ...overrides,
  };
}

describe('calculateInvoiceTotals', () => {
  describe('basic totals', () => {
    it('computes subtotal, tax and total for a single EUR line', () => {
      const totals = calculateInvoiceTotals(invoice());

      expect(totals.subtotal).toBe(49);
      expect(totals.taxTotal).toBe(9.31);
      expect(totals.total).toBe(58.31);
    });

    it('sums several lines', () => {
      const seats = line({ sku: 'SEAT', description: 'Extra seat', quantity: 3, unitPrice: 12 });
      const totals = calculateInvoiceTotals(invoice({ lines: [line(), seats] }));

      expect(totals.subtotal).toBe(85);
      expect(totals.taxTotal).toBe(16.15);
      expect(totals.total).toBe(101.15);
    });

    it('applies the reduced rate to reduced-category lines', () => {
      const manual = line({ sku: 'BOOK-01', description: 'Printed manual', unitPrice: 12, taxCategory: 'reduced' });
      const totals = calculateInvoiceTotals(invoice({ lines: [manual] }));

      expect(totals.taxTotal).toBe(0.84);
      expect(totals.lines[0]?.taxRate).toBe(0.07);
    });

    it('charges no tax on exempt lines', () => {
      const totals = calculateInvoiceTotals(invoice({ lines: [line({ taxCategory: 'exempt' })] }));

      expect(totals.taxTotal).toBe(0);
      expect(totals.total).toBe(49);
    });
  });

  describe('discounts', () => {
    it('applies a line discount before tax', () => {
      const totals = calculateInvoiceTotals(invoice({ lines: [line({ unitPrice: 200, discountPercent: 10 })] }));

      expect(totals.lines[0]?.discount).toBe(20);
      expect(totals.subtotal).toBe(180);
      expect(totals.taxTotal).toBe(34.2);
      expect(totals.total).toBe(214.2);
    });

    it('reports the discount total across lines', () => {
      const lines = [
        line({ unitPrice: 200, discountPercent: 10 }),
        line({ sku: 'ADDON', unitPrice: 50, discountPercent: 20 }),
      ];
      const totals = calculateInvoiceTotals(invoice({ lines }));

      expect(totals.discountTotal).toBe(30);
    });
  });

  describe('rounding', () => {
    it('rounds half to even by default (FIN-1182)', () => {
      const totals = calculateInvoiceTotals(invoice({ region: 'NONE', lines: [line({ unitPrice: 10.125 })] }));

      expect(totals.subtotal).toBe(10.12);
    });

    it('rounds half up when asked to', () => {
      const input = invoice({ region: 'NONE', lines: [line({ unitPrice: 10.125 })] });

      expect(calculateInvoiceTotals(input, { roundingMode: 'half-up' }).subtotal).toBe(10.13);
    });
  });

  describe('minor units', () => {
    it('rounds KWD totals to 3 decimals (INV-20931)', () => {
      const input = invoice({
        id: 'INV-20931',
        currency: 'KWD',
        region: 'KW',
        lines: [
          line({ sku: 'HOST-XL', description: 'Dedicated host XL', quantity: 2, unitPrice: 150.125 }),
          line({ sku: 'SUPPORT', description: 'Premium support', unitPrice: 112.096 }),
        ],
      });
      const totals = calculateInvoiceTotals(input);

      expect(totals.total).toBe(412.346);
      expect(totals.currency).toBe('KWD');
    });

    it('does not produce fractional yen', () => {
      const calls = line({ sku: 'API-CALLS', description: 'API calls (1k)', quantity: 3, unitPrice: 1234 });
      const totals = calculateInvoiceTotals(invoice({ currency: 'JPY', region: 'JP', lines: [calls] }));

      expect(totals.taxTotal).toBe(370);
      expect(totals.total).toBe(4072);
    });

    it('rounds BHD tax to 3 decimals', () => {
      const licence = line({ sku: 'LIC-STD', description: 'Standard licence', unitPrice: 19.995 });
      const totals = calculateInvoiceTotals(invoice({ currency: 'BHD', region: 'BH', lines: [licence] }));

      expect(totals.subtotal).toBe(19.995);
      expect(totals.taxTotal).toBe(2);
      expect(totals.total).toBe(21.995);
    });

    it('applies percentage discounts in JPY without fractional yen', () => {
      const plan = line({ sku: 'PLAN-ENT', description: 'Enterprise plan', unitPrice: 9999, discountPercent: 15 });
      const totals = calculateInvoiceTotals(invoice({ currency: 'JPY', region: 'JP', lines: [plan] }));

      expect(totals.lines[0]?.discount).toBe(1500);
      expect(totals.discountTotal).toBe(1500);
      expect(totals.total).toBe(9349);
    });

    it('keeps two decimals for CHF', () => {
      const totals = calculateInvoiceTotals(
        invoice({ currency: 'CHF', region: 'CH', lines: [line({ unitPrice: 99.9 })] }),
      );

      expect(totals.taxTotal).toBe(8.09);
      expect(totals.total).toBe(107.99);
    });
  });

  describe('tax breakdown', () => {
    it('groups tax by label and rate', () => {
      const manual = line({ sku: 'BOOK-01', unitPrice: 12, taxCategory: 'reduced' });
      const totals = calculateInvoiceTotals(invoice({ lines: [line(), manual] }), { includeTaxBreakdown: true });

      expect(totals.taxBreakdown).toEqual({ 'USt 19%': 9.31, 'USt 7%': 0.84 });
    });
  });

  describe('validation', () => {
    it('rejects unsupported currencies', () => {
      expect(() => calculateInvoiceTotals(invoice({ currency: 'XYZ' }))).toThrow(UnsupportedCurrencyError);
    });

    it('rejects an invoice without lines', () => {
      expect(() => calculateInvoiceTotals(invoice({ lines: [] }))).toThrow(InvoiceValidationError);
    });

    it('rejects more than 500 line items', () => {
      const lines = Array.from({ length: 501 }, (_, index) => line({ sku: \`SKU-\${index}\` }));

      expect(() => calculateInvoiceTotals(invoice({ lines }))).toThrow(/the maximum is 500/);
    });

    it('rejects discounts above 100%', () => {
      expect(() => calculateInvoiceTotals(invoice({ lines: [line({ discountPercent: 120 })] }))).toThrow(/discount/);
    });
  });
});
`;
}

function taxTestTs(): string {
  return code`
import { describe, expect, it } from 'vitest';
import {
  computeLineTax,
  formatRate,
  isTaxRegion,
  type LineTax,
  labelFor,
  rateFor,
  summarizeTax,
  type TaxCategory,
  type TaxRegion,
} from '../../src/billing/tax';

const taxFor = (net: number, category: TaxCategory, region: TaxRegion) => computeLineTax(net, category, region);

describe('rateFor', () => {
  it('returns the German standard rate', () => {
    expect(rateFor('DE', 'standard')).toBe(0.19);
  });

  it('returns the French reduced rate', () => {
    expect(rateFor('FR', 'reduced')).toBe(0.055);
  });

  it('returns 0 for exempt and zero-rated lines', () => {
    expect(rateFor('GB', 'exempt')).toBe(0);
    expect(rateFor('GB', 'zero')).toBe(0);
  });
});

describe('computeLineTax', () => {
  it('rounds per line to cents', () => {
    expect(taxFor(10.99, 'standard', 'DE').amount).toBe(2.09);
  });

  it('applies the New York combined sales tax', () => {
    expect(taxFor(100, 'standard', 'US-NY').amount).toBe(8.88);
  });

  it('labels tax with the regional name', () => {
    expect(labelFor('CH')).toBe('MWST');
  });

  it('charges no tax in Kuwait', () => {
    expect(taxFor(412.346, 'standard', 'KW').amount).toBe(0);
  });
});

describe('summarizeTax', () => {
  it('groups amounts by label and rate', () => {
    const lines: LineTax[] = [
      { category: 'standard', rate: 0.19, amount: 9.31, label: 'USt' },
      { category: 'reduced', rate: 0.07, amount: 0.84, label: 'USt' },
      { category: 'standard', rate: 0.19, amount: 1.9, label: 'USt' },
    ];
    const summary = summarizeTax(lines);

    expect(summary['USt 19%']).toBeCloseTo(11.21, 10);
    expect(summary['USt 7%']).toBeCloseTo(0.84, 10);
  });

  it('skips zero-rate lines', () => {
    expect(summarizeTax([{ category: 'exempt', rate: 0, amount: 0, label: 'USt' }])).toEqual({});
  });
});

describe('formatRate', () => {
  it('drops trailing zeros', () => {
    expect(formatRate(0.055)).toBe('5.5%');
    expect(formatRate(0.08875)).toBe('8.875%');
  });
});

describe('isTaxRegion', () => {
  it('accepts known regions and rejects unknown ones', () => {
    expect(isTaxRegion('NL')).toBe(true);
    expect(isTaxRegion('XX')).toBe(false);
  });
});
`;
}

function fakesTs(): string {
  return code`
import type { AuditEntry, AuditLog } from '../../src/audit/audit-log';
import type { InvoiceInput, InvoiceTotals } from '../../src/billing/invoice';
import type { InvoicePage, InvoiceRepo, ListOpenQuery, StoredInvoice } from '../../src/db/invoice-repo';

/** An open invoice with one line and a stored total that may be stale. Region KW has no tax. */
export function storedInvoice(id: string, currency: string, unitPrice: number, storedTotal: number): StoredInvoice {
  const input: InvoiceInput = {
    id,
    customerId: 'cus_test',
    currency,
    region: 'KW',
    issuedAt: '2024-02-01',
    lines: [{ sku: 'SKU-1', description: 'Test item', quantity: 1, unitPrice }],
  };
  return {
    input,
    status: 'open',
    subtotal: storedTotal,
    taxTotal: 0,
    total: storedTotal,
    updatedAt: '2024-02-01T00:00:00.000Z',
  };
}

export class FakeInvoiceRepo implements InvoiceRepo {
  readonly saved: Array<{ id: string; totals: InvoiceTotals }> = [];
  readonly queries: ListOpenQuery[] = [];

  constructor(private readonly invoices: StoredInvoice[]) {}

  async findById(id: string): Promise<StoredInvoice | undefined> {
    return this.invoices.find((invoice) => invoice.input.id === id);
  }

  async listOpen(query: ListOpenQuery): Promise<InvoicePage> {
    this.queries.push(query);
    const start = query.after === undefined ? 0 : Number(query.after);
    const items = this.invoices.slice(start, start + query.limit);
    const end = start + items.length;
    return { items, nextCursor: end < this.invoices.length ? String(end) : undefined };
  }

  async insert(): Promise<void> {
    throw new Error('FakeInvoiceRepo.insert is not used by the CLI tests');
  }

  async save(id: string, totals: InvoiceTotals): Promise<void> {
    this.saved.push({ id, totals });
  }
}

export class FakeAuditLog implements AuditLog {
  readonly entries: AuditEntry[] = [];

  async record(entry: AuditEntry): Promise<void> {
    this.entries.push(entry);
  }
}
`;
}

function recalculateTestTs(): string {
  return code`
import { describe, expect, it } from 'vitest';
import { main, parseRecalculateArgs, recalculateInvoices } from '../../src/cli/recalculate';
import { FakeAuditLog, FakeInvoiceRepo, storedInvoice } from '../helpers/fakes';

function deps(repo: FakeInvoiceRepo, audit = new FakeAuditLog()) {
  const output: string[] = [];
  return { repo, audit, output, out: (text: string) => output.push(text) };
}

describe('parseRecalculateArgs', () => {
  it('defaults the batch size to 250', () => {
    expect(parseRecalculateArgs([]).batchSize).toBe(250);
  });

  it('reads --batch-size, --since and --currency', () => {
    const options = parseRecalculateArgs(['--batch-size', '100', '--since', '2024-01-01', '--currency', 'kwd']);

    expect(options).toMatchObject({ batchSize: 100, since: '2024-01-01', currency: 'KWD', force: false });
  });

  it('rejects a batch size above 5000', () => {
    expect(() => parseRecalculateArgs(['--batch-size', '5001'])).toThrow(/between 1 and 5000/);
  });
});

describe('recalculateInvoices', () => {
  it('saves only invoices whose totals changed', async () => {
    const repo = new FakeInvoiceRepo([storedInvoice('INV-1', 'EUR', 49, 48.5), storedInvoice('INV-2', 'EUR', 49, 49)]);
    const result = await recalculateInvoices(parseRecalculateArgs([]), deps(repo));

    expect(result).toMatchObject({ scanned: 2, changed: 1, saved: 1 });
    expect(repo.saved.map((entry) => entry.id)).toEqual(['INV-1']);
  });

  it('writes one audit entry per saved invoice', async () => {
    const audit = new FakeAuditLog();
    const repo = new FakeInvoiceRepo([storedInvoice('INV-1', 'EUR', 49, 48.5)]);
    await recalculateInvoices(parseRecalculateArgs([]), deps(repo, audit));

    expect(audit.entries).toEqual([
      {
        actor: 'cli:recalculate-invoices',
        action: 'invoice.recalculated',
        invoiceId: 'INV-1',
        before: 48.5,
        after: 49,
      },
    ]);
  });

  it('re-saves unchanged invoices with --force', async () => {
    const repo = new FakeInvoiceRepo([storedInvoice('INV-2', 'EUR', 49, 49)]);
    const result = await recalculateInvoices(parseRecalculateArgs(['--force']), deps(repo));

    expect(result).toMatchObject({ changed: 0, saved: 1 });
  });

  it('pages through the repository in batches', async () => {
    const repo = new FakeInvoiceRepo(Array.from({ length: 5 }, (_, i) => storedInvoice(\`INV-\${i}\`, 'EUR', 10, 10)));
    const result = await recalculateInvoices(parseRecalculateArgs(['--batch-size', '2']), deps(repo));

    expect(result.scanned).toBe(5);
    expect(repo.queries.map((query) => query.after)).toEqual([undefined, '2', '4']);
  });
});

describe('main', () => {
  it('returns 64 on a usage error', async () => {
    expect(await main(['--batch-size', 'lots'], deps(new FakeInvoiceRepo([])))).toBe(64);
  });

  it('returns 0 after a normal run', async () => {
    const run = deps(new FakeInvoiceRepo([storedInvoice('INV-1', 'EUR', 49, 48.5)]));

    expect(await main([], run)).toBe(0);
    expect(run.output.at(-1)).toBe('done: 1 invoices saved (1 with changed totals, 1 scanned)');
  });
});
`;
}

function dryRunTestTs(): string {
  return code`
import { describe, expect, it, vi } from 'vitest';
import { DRY_RUN_TABLE_LIMIT, main, parseRecalculateArgs } from '../../src/cli/recalculate';
import type { StoredInvoice } from '../../src/db/invoice-repo';
import { FakeAuditLog, FakeInvoiceRepo, storedInvoice } from '../helpers/fakes';

// INV-1 was stored with the old 2-decimal rounding (112.10 KWD); INV-2 is up to date.
const DEFAULT_INVOICES = [storedInvoice('INV-1', 'KWD', 112.096, 112.1), storedInvoice('INV-2', 'EUR', 49, 49)];

async function run(argv: string[], invoices: StoredInvoice[] = DEFAULT_INVOICES) {
  const repo = new FakeInvoiceRepo(invoices);
  const audit = new FakeAuditLog();
  const output: string[] = [];
  const exitCode = await main(argv, { repo, audit, out: (text) => output.push(text) });
  return { repo, audit, output, exitCode };
}

describe('recalculate-invoices --dry-run', () => {
  it('is accepted as --dry-run and as -n', () => {
    expect(parseRecalculateArgs(['--dry-run']).dryRun).toBe(true);
    expect(parseRecalculateArgs(['-n']).dryRun).toBe(true);
    expect(parseRecalculateArgs([]).dryRun).toBe(false);
  });

  it('keeps the default batch size of 250', () => {
    expect(parseRecalculateArgs(['-n']).batchSize).toBe(250);
  });

  it('never saves and never writes audit entries', async () => {
    const { repo, audit } = await run(['--dry-run']);

    expect(repo.saved).toEqual([]);
    expect(audit.entries).toEqual([]);
  });

  it('prints the changed invoices and one summary line', async () => {
    const { output } = await run(['--dry-run']);
    const report = output.filter((text) => !text.startsWith('scanned '));

    expect(report[0]).toMatch(/^invoice\s+currency\s+stored total\s+new total\s+delta$/);
    expect(report[1]).toMatch(/^INV-1\s+KWD\s+112\.100\s+112\.096\s+-0\.004$/);
    expect(report.at(-1)).toBe('Dry run: 1 of 2 invoices would change; nothing was written.');
  });

  it('lists at most 50 invoices and counts the rest', async () => {
    const invoices = Array.from({ length: 60 }, (_, i) => storedInvoice(\`INV-\${1000 + i}\`, 'EUR', 20, 19.5));
    const { output } = await run(['-n'], invoices);
    const rows = output.filter((text) => text.startsWith('INV-'));

    expect(rows).toHaveLength(DRY_RUN_TABLE_LIMIT);
    expect(output).toContain('... and 10 more');
    expect(output.at(-1)).toBe('Dry run: 60 of 60 invoices would change; nothing was written.');
  });

  it('exits with 2 when an invoice would change', async () => {
    expect((await run(['--dry-run'])).exitCode).toBe(2);
  });

  it('exits with 0 when nothing would change', async () => {
    expect((await run(['--dry-run'], [storedInvoice('INV-2', 'EUR', 49, 49)])).exitCode).toBe(0);
  });

  it('rejects --dry-run together with --force (exit code 64)', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { exitCode, repo } = await run(['--dry-run', '--force']);
    stderr.mockRestore();

    expect(exitCode).toBe(64);
    expect(repo.queries).toEqual([]);
  });
});
`;
}

function readmeMd(): string {
  return code`
# invoice-service

Invoicing API and batch jobs for Larkspur Cloud billing. It computes invoice totals (line discounts, per-line tax,
currency rounding), stores invoices in Postgres and serves them to the dashboard and, through the SDK, to the
mobile app.

## Getting started

Needs Node.js 20.11+ and PostgreSQL 15. \`npm ci\`, copy \`.env.example\` to \`.env\`, then \`npm run db:migrate\` and \`npm run dev\`. The API listens on port 8080
by default, under the base path \`/v2\`.

## Configuration

| Variable | Default | Description |
| --- | --- | --- |
| \`PORT\` | \`8080\` | HTTP port of the API |
| \`DATABASE_URL\` | - | Postgres connection string |
| \`SESSION_SECRET\` | - | HMAC key for session tokens, at least 32 characters (required) |
| \`SESSION_TTL_MINUTES\` | \`45\` | Session lifetime |
| \`INVOICE_MAX_LINE_ITEMS\` | \`500\` | Maximum number of lines per invoice |
| \`RECALC_BATCH_SIZE\` | \`250\` | Invoices loaded per query by \`recalculate-invoices\` |

Billing settings that are not environment variables (rounding mode, tax rounding strategy, default currency) live
in \`src/config.ts\`.

## Money and rounding

- Amounts are JavaScript numbers in major units (\`12.34\` means 12.34 EUR).
- All amounts are rounded to 2 decimal places with banker's rounding (half-even), as required by finance (FIN-1182).
- Tax is computed and rounded per line, then summed (\`taxRounding: 'per-line'\` in \`src/config.ts\`).
- The API sends amounts as strings with two decimals, e.g. \`"58.31"\`.

## API

| Method | Path | Description |
| --- | --- | --- |
| GET | \`/v2/health\` | Liveness probe |
| GET | \`/v2/invoices/:id\` | Stored invoice with computed totals |
| POST | \`/v2/invoices\` | Create an invoice |
| POST | \`/v2/invoices/:id/totals\` | Preview totals for an invoice body (\`?breakdown=1\` adds tax per rate) |
| GET | \`/v2/tax/preview\` | Tax for one amount, e.g. \`?net=100&region=DE&category=standard\` |
| POST | \`/v2/sessions\` | Sign in (sets the \`inv_sid\` cookie) |
| DELETE | \`/v2/sessions/current\` | Sign out |

Request and response bodies are described in \`docs/api.md\`.

## Command-line tools

### recalculate-invoices

Recomputes the totals of all open invoices with the current billing rules and saves the ones that changed. Every
saved invoice gets an audit log entry (actor \`cli:recalculate-invoices\`).

\`\`\`sh
npm run recalculate -- --since 2024-01-01
npm run recalculate -- --currency KWD --batch-size 100
\`\`\`

Run it after any change to rounding or tax rules. Options are documented in \`docs/cli.md\`.

## Development

\`npm test\` (vitest), \`npm run typecheck\` and \`npm run lint\` (Biome); CI runs all three on every pull request.

## Releases

See \`CHANGELOG.md\`. Version 2.4.0 will ship the session hardening from the security review (SEC-204).
`;
}

function cliDocMd(): string {
  return code`
# Command-line tools

In development the tools run with \`npm run <name> -- [options]\`; on the job runner they are installed as binaries
(\`npx recalculate-invoices\`).

## recalculate-invoices

Recomputes the totals of open invoices (status \`open\`) with the current billing code and saves the invoices whose
subtotal, tax total or total changed. Each save writes an audit log entry with the actor \`cli:recalculate-invoices\`,
the stored total and the new total.

### Options

| Option | Default | Description |
| --- | --- | --- |
| \`--batch-size <n>\` | \`250\` (\`RECALC_BATCH_SIZE\`) | Invoices loaded per query, 1 to 5000 |
| \`--since <date>\` | - | Only invoices issued on or after this date (\`YYYY-MM-DD\`) |
| \`--currency <code>\` | - | Only invoices in this currency |
| \`--force\` | off | Save every invoice, even if its totals did not change (regenerates the PDFs) |
| \`-h\`, \`--help\` | - | Print usage |

### Exit codes

| Code | Meaning |
| --- | --- |
| 0 | Finished |
| 1 | Unexpected error (database, bug); details on stderr |
| 64 | Usage error (unknown option, invalid value) |

Progress (\`scanned 250 invoices, 3 changed so far\`) goes to stdout after every batch.

### Running in production

The job runner's \`recalculate-invoices\` task uses the default batch size and is started from the ops console.
`;
}

function changelogMd(): string {
  return code`
# Changelog

All notable changes to this project are documented here. The format follows Keep a Changelog; versions follow
semantic versioning.

## Unreleased

## 2.3.1 - 2024-05-28

### Fixed
- \`GET /v2/invoices/:id\` returned 500 instead of 404 for unknown ids.
- Session cookies are marked \`SameSite=Lax\`.

## 2.3.0 - 2024-05-02

### Added
- \`POST /v2/invoices/:id/totals\` accepts \`?breakdown=1\` and returns the tax per rate.
- \`recalculate-invoices\` CLI with \`--since\`, \`--currency\`, \`--batch-size\` and \`--force\`.
- Three-decimal currencies (BHD, IQD, JOD, KWD, LYD, OMR, TND).

### Changed
- Money helpers moved from \`src/utils/money.ts\` into \`src/billing/invoice.ts\`.

## 2.2.0 - 2024-03-19

### Added
- Zero-decimal currencies (CLP, ISK, JPY, KRW, UGX, VND).
- Tax region Oman (\`OM\`).
`;
}

function createRepo(): FictionalRepo {
  const repo = new FictionalRepo();
  repo.add('package.json', packageJson());
  repo.add('README.md', readmeMd());
  repo.add('CHANGELOG.md', changelogMd());
  repo.add('docs/cli.md', cliDocMd());
  repo.add('src/config.ts', configTs());
  repo.add('src/auth/session.ts', sessionTs());
  repo.add('src/api/routes.ts', routesTs());
  repo.add('src/api/serializers.ts', serializersTs());
  repo.add('src/audit/audit-log.ts', auditLogTs());
  repo.add('src/billing/credit-note.ts', creditNoteTs());
  repo.add('src/billing/currency.ts', currencyTs());
  repo.add('src/billing/invoice.ts', invoiceTs());
  repo.add('src/billing/tax.ts', taxTs());
  repo.add('src/cli/recalculate.ts', recalculateTs());
  repo.add('src/db/client.ts', dbClientTs());
  repo.add('src/db/invoice-repo.ts', invoiceRepoTs());
  repo.add('src/reports/revenue.ts', revenueTs());
  repo.add('src/sdk/index.ts', sdkIndexTs());
  repo.add('test/billing/invoice.test.ts', invoiceTestTs());
  repo.add('test/billing/tax.test.ts', taxTestTs());
  repo.add('test/cli/recalculate.test.ts', recalculateTestTs());
  repo.add('test/helpers/fakes.ts', fakesTs());
  return repo;
}

// ---------------------------------------------------------------------------------------------------------------
// Test reporter output (vitest style), built from the fictional files so that line numbers always match
// ---------------------------------------------------------------------------------------------------------------

const VITEST_VERSION = 'v4.0.8';
const RULE = '⎯';

interface Frame {
  fn?: string;
  file: string;
  line: number;
  column: number;
}

interface Failure {
  error: string;
  diff?: { expected: string; received: string };
  frames: Frame[];
}

interface TestCase {
  title: string[];
  failure?: Failure;
}

interface TestFile {
  file: string;
  tests: TestCase[];
  stderr?: Array<{ title: string[]; text: string }>;
}

interface RunSpec {
  /** The npm script line, e.g. "vitest run test/billing". */
  script: string;
  files: TestFile[];
  verbose: boolean;
  startAt: string;
}

/** Test titles (describe path + test name) of a test file, read from its source. */
function titlesIn(source: string): string[][] {
  const stack: string[] = [];
  const titles: string[][] = [];
  for (const text of source.split('\n')) {
    const match = /^( *)(describe|it)\('(.+?)', (?:async )?\(\) => \{/.exec(text);
    if (!match) {
      continue;
    }
    const depth = (match[1] ?? '').length / 2;
    stack.length = depth;
    if (match[2] === 'describe') {
      stack.push(match[3] ?? '');
    } else {
      titles.push([...stack, match[3] ?? '']);
    }
  }
  return titles;
}

function testMs(file: string, title: readonly string[]): number {
  const key = `${file}>${title.join('>')}`;
  if (file.startsWith('test/api/routes') || file.startsWith('test/db/')) {
    return fakeMs(key, 2, 24);
  }
  return fakeMs(key, 0, 5);
}

function codeFrame(repo: FictionalRepo, frame: Frame): string[] {
  const lines = linesOf(repo.content(frame.file));
  const out: string[] = [];
  for (let n = Math.max(1, frame.line - 2); n <= Math.min(lines.length, frame.line + 2); n++) {
    const text = `    ${String(n).padStart(3)}| ${lines[n - 1] ?? ''}`.trimEnd();
    // Like vitest without a terminal: code frame lines are cut at 80 columns.
    out.push(text.length > 80 ? `${text.slice(0, 79)}…` : text);
    if (n === frame.line) {
      out.push(`       | ${' '.repeat(frame.column - 1)}^`);
    }
  }
  return out;
}

function formatDuration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms}ms`;
}

function renderVitest(repo: FictionalRepo, run: RunSpec): { output: string; exitCode: number } {
  const out: string[] = [
    '',
    '> invoice-service@2.3.1 test',
    `> ${run.script}`,
    '',
    '',
    ` RUN  ${VITEST_VERSION} ${REPO_ROOT}`,
    '',
  ];
  const failures: Array<{ file: string; test: TestCase }> = [];
  let testsMs = 0;
  for (const file of run.files) {
    for (const block of file.stderr ?? []) {
      out.push(`stderr | ${file.file} > ${block.title.join(' > ')}`, block.text, '');
    }
    const times = file.tests.map((test) => testMs(file.file, test.title));
    const fileMs = times.reduce((sum, ms) => sum + ms, 0) + fakeMs(file.file, 2, 9);
    testsMs += fileMs;
    const failed = file.tests.filter((test) => test.failure !== undefined);
    failures.push(...failed.map((test) => ({ file: file.file, test })));
    if (run.verbose) {
      file.tests.forEach((test, index) => {
        const mark = test.failure ? '×' : '✓';
        out.push(` ${mark} ${file.file} > ${test.title.join(' > ')} ${times[index]}ms`);
        if (test.failure) {
          out.push(`   → ${test.failure.error.replace(/^\w+: /, '')}`);
        }
      });
    } else if (failed.length > 0) {
      const count = `${file.tests.length} tests | ${failed.length} failed`;
      out.push(` ❯ ${file.file} (${count}) ${fileMs}ms`);
      file.tests.forEach((test, index) => {
        const indent = ' '.repeat(3 + 2 * (test.title.length - 1));
        out.push(`${indent}${test.failure ? '×' : '✓'} ${test.title.at(-1)} ${times[index]}ms`);
      });
    } else {
      const count = `${file.tests.length} test${file.tests.length === 1 ? '' : 's'}`;
      out.push(` ✓ ${file.file} (${count}) ${fileMs}ms`);
    }
  }
  out.push('');
  if (failures.length > 0) {
    out.push(`${RULE.repeat(7)} Failed Tests ${failures.length} ${RULE.repeat(7)}`, '');
    failures.forEach(({ file, test }, index) => {
      const failure = test.failure;
      if (!failure) {
        return;
      }
      out.push(` FAIL  ${file} > ${test.title.join(' > ')}`, failure.error);
      if (failure.diff) {
        out.push('', '- Expected', '+ Received', '', `- ${failure.diff.expected}`, `+ ${failure.diff.received}`, '');
      }
      failure.frames.forEach((frame, frameIndex) => {
        out.push(` ❯ ${frame.fn ? `${frame.fn} ` : ''}${frame.file}:${frame.line}:${frame.column}`);
        if (frameIndex === 0) {
          out.push(...codeFrame(repo, frame));
        }
      });
      out.push('', `${RULE.repeat(24)}[${index + 1}/${failures.length}]${RULE}`, '');
    });
    out.push('');
  }
  const failedFiles = run.files.filter((file) => file.tests.some((test) => test.failure)).length;
  const passedFiles = run.files.length - failedFiles;
  const totalTests = run.files.reduce((sum, file) => sum + file.tests.length, 0);
  const passedTests = totalTests - failures.length;
  const counts = (failed: number, passed: number): string =>
    [failed > 0 ? `${failed} failed` : '', passed > 0 ? `${passed} passed` : ''].filter(Boolean).join(' | ');
  const fileSummary = counts(failedFiles, passedFiles);
  const testSummary = counts(failures.length, passedTests);
  const transform = 60 + run.files.length * 41;
  const imports = 90 + run.files.length * 57;
  const total = transform + imports + testsMs + 180;
  out.push(
    ` Test Files  ${fileSummary} (${run.files.length})`,
    `      Tests  ${testSummary} (${totalTests})`,
    `   Start at  ${run.startAt}`,
    `   Duration  ${formatDuration(total)} (transform ${transform}ms, setup 0ms, import ${imports}ms, tests ${testsMs}ms, environment 0ms)`,
    '',
  );
  return { output: out.join('\n'), exitCode: failures.length > 0 ? 1 : 0 };
}

/** Test files of the fictional repository that the story never opens: only their test titles matter. */
function unopenedSuites(): Record<string, string[][]> {
  const currency: string[][] = [];
  for (const c of ALL_CURRENCIES) {
    currency.push(['minorUnitsFor', `returns ${decimalsOf(c)} for ${c}`]);
  }
  currency.push(['minorUnitsFor', 'is case-insensitive'], ['minorUnitsFor', 'throws UnsupportedCurrencyError for XYZ']);
  for (const c of ALL_CURRENCIES) {
    currency.push(['isSupportedCurrency', `accepts ${c}`]);
  }
  const halfEven: Array<[number, number, number]> = [
    [0.125, 2, 0.12],
    [0.135, 2, 0.14],
    [2.5, 0, 2],
    [3.5, 0, 4],
    [-2.5, 0, -2],
    [1.005, 2, 1],
    [1.015, 2, 1.02],
    [412.3465, 3, 412.346],
    [412.3475, 3, 412.348],
    [19.9995, 3, 20],
    [1234.5, 0, 1234],
    [1235.5, 0, 1236],
    [0.0005, 3, 0],
    [0.0015, 3, 0.002],
    [99.995, 2, 100],
    [10.125, 2, 10.12],
  ];
  for (const [value, decimals, expected] of halfEven) {
    currency.push(['roundHalfEven', `${value} to ${decimals} decimals is ${expected}`]);
  }
  const halfUp: Array<[number, number, number]> = [
    [0.125, 2, 0.13],
    [2.5, 0, 3],
    [-2.5, 0, -3],
    [1.005, 2, 1.01],
    [412.3465, 3, 412.347],
    [10.125, 2, 10.13],
  ];
  for (const [value, decimals, expected] of halfUp) {
    currency.push(['roundHalfUp', `${value} to ${decimals} decimals is ${expected}`]);
  }
  for (const c of ALL_CURRENCIES) {
    const rounded = ['1235', '', '1234.57', '1234.568'][decimalsOf(c)];
    currency.push(['roundToCurrency', `1234.5678 ${c} is ${rounded}`]);
  }
  for (const c of ALL_CURRENCIES) {
    const minor = ['12', '', '1234', '12345'][decimalsOf(c)];
    currency.push(['toMinorUnits', `12.345 ${c} is ${minor}`]);
  }
  for (const c of ALL_CURRENCIES) {
    currency.push(['formatAmount', `${c} with ${decimalsOf(c)} decimals`]);
  }
  for (const c of ALL_CURRENCIES) {
    currency.push(['roundToCurrency', `${c} ties go to even`]);
  }
  currency.push(
    ['roundToCurrency', 'defaults to half-even'],
    ['roundToCurrency', 'throws for an unsupported currency'],
  );

  const at = (group: string, names: string[]): string[][] => names.map((name) => [...group.split(' > '), name]);
  return {
    'test/billing/currency.test.ts': currency,
    'test/auth/session.test.ts': [
      ...at('session > createSession', [
        'issues a 128-bit random session id',
        'expires 45 minutes after issue',
        'signs the token with SESSION_SECRET',
        'throws when SESSION_SECRET is shorter than 32 characters',
      ]),
      ...at('session > verifySession', [
        'accepts a fresh token',
        'rejects a tampered payload',
        'rejects a tampered signature',
        'rejects an expired token',
        'rejects a revoked session',
        'rejects an empty token',
        'rejects a token without a signature',
        'rejects a token with three parts',
      ]),
      ...at('session > shouldRotate', ['is false within 15 minutes', 'is true after 15 minutes']),
      ...at('session > secondsUntilExpiry', ['rounds to whole seconds', 'never returns a negative number']),
      ...at('session > revokeSession', ['revokes only the given session']),
    ],
    'test/api/routes.test.ts': [
      ...at('routes > GET /v2/health', ['answers 200 without a session']),
      ...at('routes > GET /v2/invoices/:id', [
        'returns the stored invoice with serialized totals',
        'returns 404 for an unknown id',
        'requires a session',
      ]),
      ...at('routes > POST /v2/invoices', [
        'creates an invoice and returns 201 with a Location header',
        'returns 409 for a duplicate id',
        'returns 400 for an unsupported currency',
        'returns 400 with the field name for an invalid line',
      ]),
      ...at('routes > POST /v2/invoices/:id/totals', [
        'previews totals without storing anything',
        'adds the tax breakdown with ?breakdown=1',
        'returns 400 for more than 500 lines',
      ]),
      ...at('routes > GET /v2/tax/preview', [
        'computes German standard tax for net=100',
        'defaults the category to standard',
        'returns 400 without a region',
        'returns 400 for an unknown region',
      ]),
      ...at('matchRoute', [
        'matches paths under /v2',
        'extracts and decodes params',
        'does not match a different method',
        'returns undefined for unknown paths',
      ]),
    ],
    'test/api/session-routes.test.ts': [
      ...at('POST /v2/sessions', [
        'sets the inv_sid cookie',
        'sets Max-Age to the session lifetime',
        'returns 400 without a userId',
      ]),
      ...at('DELETE /v2/sessions/current', [
        'revokes the session and clears the cookie',
        'answers 204 without a session',
      ]),
    ],
    'test/api/serializers.test.ts': at('serializeTotals', [
      'serializes amounts as strings',
      'serializes every line',
      'formats tax rates as percentages',
      'includes the tax breakdown only when present',
      'keeps the invoice currency',
    ]).concat(
      at('serializeError', [
        'maps InvoiceValidationError to invalid_invoice with the field',
        'maps UnsupportedCurrencyError to unsupported_currency',
        'hides the message of unexpected errors',
      ]),
    ),
    'test/billing/credit-note.test.ts': at('createCreditNote', [
      'credits net and tax for one line',
      'sums several lines',
      'rejects an empty credit note',
      'rejects non-positive amounts',
      'rejects a credit above the invoice total',
      'keeps the invoice currency',
    ]),
    'test/db/invoice-repo.test.ts': at('createInvoiceRepo', [
      'findById maps numeric columns to numbers',
      'findById returns undefined for an unknown id',
      'listOpen returns only open invoices',
      'listOpen filters by currency',
      'listOpen filters by issue date',
      'listOpen pages with a cursor',
      'listOpen returns no cursor on the last page',
      'insert stores the body as JSON',
      'save updates the totals and updated_at',
      'save leaves the body untouched',
    ]),
    'test/reports/revenue.test.ts': [
      ...at('monthlyRevenue', [
        'groups by month and currency',
        'sorts by month, then currency',
        'counts invoices per group',
      ]),
      ...at('revenueCsv', ['writes a header row', 'writes one row per group']),
      ...at('averageInvoiceValue', ['returns 0.00 for an empty group']),
    ],
  };
}

/** Biome's report for one formatting violation: `old` (one line) would be printed as `next`. */
function biomeFormatError(repo: FictionalRepo, path: string, old: string, next: string, checkedFiles: number): string {
  const lines = linesOf(repo.content(path));
  const first = lines.indexOf(old) + 1;
  const added = next.split('\n');
  const width = String(first + added.length + 2).length;
  const blank = ' '.repeat(width);
  const num = (n: number): string => String(n).padStart(width);
  const dots = (text: string): string => text.replaceAll(' ', '·');
  const out = [
    `${path} format ${'━'.repeat(100 - path.length - 8)}`,
    '',
    '  × Formatter would have printed the following content:',
    '  ',
  ];
  for (let n = first - 2; n < first; n++) {
    out.push(`    ${num(n)} ${num(n)} │   ${lines[n - 1] ?? ''}`);
  }
  out.push(`    ${num(first)} ${blank} │ - ${dots(old)}`);
  added.forEach((text, index) => {
    out.push(`    ${blank} ${num(first + index)} │ + ${dots(text)}`);
  });
  for (let n = first + 1; n <= first + 2; n++) {
    out.push(`    ${num(n)} ${num(n + added.length - 1)} │   ${lines[n - 1] ?? ''}`);
  }
  out.push(
    '  ',
    '',
    `Checked ${checkedFiles} files in 31ms. No fixes applied.`,
    'Found 1 error.',
    `check ${'━'.repeat(94)}`,
    '',
    '  × Some errors were emitted while running checks.',
    '  ',
  );
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The story
// ---------------------------------------------------------------------------------------------------------------

const SYSTEM_PROMPT = `You are a coding agent working in a developer's local checkout of a TypeScript service.

Repository: ${REPO_ROOT} (Node.js 20, TypeScript, vitest, Biome). The shell starts in the repository root.

Tools:
- list_files {dir}: recursive listing of a directory (node_modules, .git and dist are skipped).
- read_file {path}: the file with line numbers.
- search {pattern, path}: regular-expression search (like ripgrep) below a path; prints file:line:text.
- edit_file {path, old, new}: replaces the text \`old\`, which must occur exactly once in the file, with \`new\`.
- write_file {path, content}: creates or overwrites a file.
- run_tests {command}: runs a test command (for example "npm test -- test/billing") and returns its output.
- bash {command}: runs a shell command.

Working rules:
- Read code before you change it, and re-read a file if you are unsure of its current state.
- Keep changes focused and in the style of the surrounding code (2 spaces, single quotes, semicolons, 120 columns).
- Do not install or add packages. Do not commit, push or change git history; the user reviews the diff.
- Respect every constraint the user gives you. If a constraint conflicts with the task, stop and ask.
- When you finish, summarize what you changed, how you verified it and anything left open.`;

const FIRST_REQUEST = `Customers invoiced in some currencies are getting wrong totals. Example from support (SUP-3318): invoice INV-20931 for a customer in Kuwait shows a total of 412.35 KWD, but the correct amount is 412.346 KWD (the dinar has 3 decimals). I also suspect JPY invoices show fractional yen. test/billing/invoice.test.ts has been failing on main since the minor-unit tests were added last week; make it pass by fixing the code, not the tests.

Constraints:
- Do not change the signature of calculateInvoiceTotals(input, options?). It is re-exported by the SDK and the mobile app pins it.
- Do not touch src/auth/session.ts at all, even if a search turns something up in there. It is frozen for the security review (SEC-204) until 2.4.0 ships.
- Finance requires banker's rounding (half-even, FIN-1182). Use whatever the config says; don't hardcode a rounding mode.
- While iterating, run only the billing tests. Run the full suite once before you report back.`;

const SECOND_REQUEST = `Thanks, that looks right. Second thing, related: ops wants to re-total the open invoices after this deploys, but they want to see the impact first. Please add a dry-run mode to the recalculate-invoices CLI (src/cli/recalculate.ts):

1. Flag --dry-run, with the short alias -n.
2. In dry-run mode it must not write anything: no repo.save() calls and no audit log entries.
3. Print a table of the invoices that would change (invoice id, currency, stored total, new total, delta), at most 50 rows. If more would change, end the table with "... and N more".
4. Finish with exactly one summary line in this form: "Dry run: 137 of 2040 invoices would change; nothing was written."
5. Exit code 0 when nothing would change and 2 when at least one invoice would change; the deploy pipeline gates on it. --dry-run together with --force is a usage error (exit code 64, like the other usage errors).
6. Do not change the default batch size (250) and do not add dependencies. We parse arguments with node:util parseArgs and that stays.

Add tests, document the flag in README.md and docs/cli.md, and add a CHANGELOG entry under "Unreleased" that covers both the rounding fix and the new flag.`;

const PLANTED_FACTS = [
  'User constraint (message 1): do not change the signature of calculateInvoiceTotals(input, options?); the SDK re-exports it and the mobile app pins it.',
  'User constraint (message 1): do not touch src/auth/session.ts (security freeze SEC-204 until 2.4.0), even if a search shows something there.',
  "User constraint (message 1): finance requires banker's rounding (half-even, FIN-1182); use the config value, do not hardcode a mode.",
  'Bug report: invoice INV-20931 (SUP-3318) shows 412.35 KWD instead of 412.346 KWD.',
  "src/config.ts: billing.roundingMode 'half-even', taxRounding 'per-line', defaultCurrency 'EUR', maxLineItems 500 (INVOICE_MAX_LINE_ITEMS), api.port 8080, basePath '/v2', session.ttlMinutes 45, cli.recalculateBatchSize 250 (RECALC_BATCH_SIZE), auditActor 'cli:recalculate-invoices'.",
  `Zero-decimal currencies: ${ZERO_DECIMAL.join(', ')}; three-decimal currencies: ${THREE_DECIMAL.join(', ')}.`,
  'The fix uses roundToCurrency(amount, currency, mode) and minorUnitsFor(currency) from src/billing/currency.ts; the buggy helpers were roundMoney() in invoice.ts and roundTax() in tax.ts (2 decimals, half-up).',
  'The header comment in invoice.ts pointed to src/utils/money.ts, which no longer exists (removed in commit c52d0e9).',
  'computeLineTax(net, category, region) gained a required fourth parameter, currency; callers updated in routes.ts, credit-note.ts and test/billing/tax.test.ts.',
  'Left open on purpose: credit-note totals still round to cents (Math.round(x * 100) / 100) and src/reports/revenue.ts writes the finance CSV with toFixed(2).',
  'Feature constraints (message 2): --dry-run with alias -n; no repo.save() and no audit entries; table of at most 50 rows then "... and N more"; summary line "Dry run: N of M invoices would change; nothing was written."; exit 0 if nothing changes, 2 if something would; --dry-run with --force is a usage error with exit code 64; keep batch size 250; no new dependencies, keep node:util parseArgs.',
  'Docs to update (message 2): README.md, docs/cli.md and a CHANGELOG entry under "Unreleased" covering both changes.',
];

function buildSession(): Session {
  const repo = createRepo();
  const t = new Tools(repo);
  const b = new SessionBuilder();
  const suites = unopenedSuites();
  const vfsTitles = (file: string): string[][] => titlesIn(repo.content(file));
  const passing = (file: string): TestFile => ({ file, tests: vfsTitles(file).map((title) => ({ title })) });
  const lineIn = (file: string, text: string): number => repo.lineOf(file, text);
  const at = (file: string, line: string, column = line, fn?: string): Frame => ({
    ...(fn === undefined ? {} : { fn }),
    file,
    ...repo.position(file, line, column),
  });
  const tsc = (command: string, errors: string[]): Call =>
    t.bash(command, errors.join('\n'), errors.length > 0 ? 2 : 0);

  const INVOICE = 'src/billing/invoice.ts';
  const TAX = 'src/billing/tax.ts';
  const CURRENCY = 'src/billing/currency.ts';
  const INVOICE_TEST = 'test/billing/invoice.test.ts';
  const TAX_TEST = 'test/billing/tax.test.ts';
  const CLI = 'src/cli/recalculate.ts';
  const CLI_TEST = 'test/cli/recalculate.test.ts';
  const DRY_RUN_TEST = 'test/cli/recalculate-dry-run.test.ts';

  b.system(SYSTEM_PROMPT);
  b.user(FIRST_REQUEST);

  // --- Part 1: the rounding bug ------------------------------------------------------------------------------

  b.step("I'll start with an overview of the repository layout.", t.list('.'));

  b.step(
    'Billing code lives in src/billing with tests in test/billing; there is also an API layer, a CLI and an SDK entry point. Let me check package.json for the test runner and scripts.',
    t.read('package.json'),
  );

  b.step(
    'Tests run with vitest (`npm test` is `vitest run`), typecheck is `tsc --noEmit`, lint is Biome. Now the heart of the bug report: the invoice calculation.',
    t.read(INVOICE),
  );

  b.step(
    `\`roundMoney()\` (line ${lineIn(INVOICE, 'function roundMoney(')}) scales by 100, so every amount (discount, net, tax, line gross, subtotal, total) is rounded to 2 decimals whatever the currency. That alone turns 412.346 KWD into 412.35. The header comment (line ${lineIn(INVOICE, '// Money helpers')}) says the money helpers live in src/utils/money.ts; the listing has no utils folder, but let me check for a currency-aware helper there.`,
    t.read('src/utils/money.ts'),
  );

  b.step(
    'The file does not exist, so that comment is stale. Let me look at the recent history of these folders to understand how the code got here.',
    t.bash(
      'git log --oneline -8 -- src/billing src/utils',
      [
        '3f9c2d1 test(billing): cover minor units for JPY, KWD and BHD (SUP-3318)',
        '8a1e4b7 feat(currency): support three-decimal currencies (BHD, IQD, JOD, KWD, LYD, OMR, TND)',
        'c52d0e9 refactor(billing): inline money helpers into invoice.ts, remove src/utils/money.ts',
        '61d7f3a feat(tax): add Oman (OM) VAT',
        'e90b2c8 feat(currency): zero-decimal currencies (CLP, ISK, JPY, KRW, UGX, VND)',
        '2f4c8aa chore(billing): tidy the tax region table',
        '4d1a9f0 feat(billing): per-line tax rounding (FIN-1140)',
        'a03c7e5 feat(billing): half-even rounding for all amounts (FIN-1182)',
      ].join('\n'),
    ),
  );

  b.step(
    'So c52d0e9 inlined the helpers into invoice.ts (and deleted src/utils/money.ts), and zero- and three-decimal currencies were added to the currency list without teaching the rounding about them. I expect src/billing/currency.ts to hold the currency metadata; reading it together with the failing test file.',
    t.read(CURRENCY),
    t.read(INVOICE_TEST),
  );

  const invoiceTests = vfsTitles(INVOICE_TEST);
  const assertion = (actual: string, expected: string, line: string): Failure => ({
    error: `AssertionError: expected ${actual} to be ${expected} // Object.is equality`,
    diff: { expected, received: actual },
    frames: [at(INVOICE_TEST, line, '.toBe(')].map((frame) => ({ ...frame, column: frame.column + 1 })),
  });
  const discountFailure = assertion('1499.85', '1500', 'expect(totals.lines[0]?.discount).toBe(1500);');
  const firstRunFailures = new Map<string, Failure>([
    [
      'rounds KWD totals to 3 decimals (INV-20931)',
      assertion('412.35', '412.346', 'expect(totals.total).toBe(412.346);'),
    ],
    ['does not produce fractional yen', assertion('370.2', '370', 'expect(totals.taxTotal).toBe(370);')],
    ['rounds BHD tax to 3 decimals', assertion('20', '19.995', 'expect(totals.subtotal).toBe(19.995);')],
    ['applies percentage discounts in JPY without fractional yen', discountFailure],
  ]);
  const firstRun = renderVitest(repo, {
    script: `vitest run ${INVOICE_TEST}`,
    verbose: false,
    startAt: '10:14:07',
    files: [
      {
        file: INVOICE_TEST,
        tests: invoiceTests.map((title) => {
          const failure = firstRunFailures.get(title.at(-1) ?? '');
          return failure ? { title, failure } : { title };
        }),
      },
    ],
  });
  b.step(
    `currency.ts already has what is needed: \`minorUnitsFor()\` (0 for ${ZERO_DECIMAL.join('/')}, 3 for ${THREE_DECIMAL.join('/')}, 2 otherwise) and \`roundToCurrency(amount, currency, mode)\` with half-even support. invoice.ts simply never calls them. Let me run the invoice tests to see the exact failures before changing anything.`,
    t.test(`npm test -- ${INVOICE_TEST}`, firstRun.output, firstRun.exitCode),
  );

  b.step(
    `Four failures, all in "minor units": KWD total 412.35 instead of 412.346, JPY tax 370.2 instead of 370, BHD subtotal 20 instead of 19.995, and the JPY discount 1499.85 instead of 1500. The JPY tax case shows tax rounding is involved too, so let me read tax.ts.`,
    t.read(TAX),
  );

  b.step(
    `tax.ts has its own \`roundTax()\` (line ${lineIn(TAX, 'function roundTax(')}): \`Math.round(amount * 100) / 100\`, so 2 decimals and half-up, which also ignores the half-even requirement. Before I touch rounding modes, let me confirm what the config says.`,
    t.read('src/config.ts'),
  );

  b.step(
    "Config: `billing.roundingMode: 'half-even'` (FIN-1182), `taxRounding: 'per-line'`, `defaultCurrency: 'EUR'`, `maxLineItems` 500. So the fix should use `config.billing.roundingMode` everywhere, including tax. Let me find every place that rounds, including other code that hardcodes two decimals.",
    t.search('Math\\.round|toFixed\\(|roundMoney\\(|roundTax\\(', 'src'),
  );

  b.step(
    `Besides invoice.ts and tax.ts, the relevant hits are:
- src/api/serializers.ts:${lineIn('src/api/serializers.ts', 'toFixed(2)')}: \`value.toFixed(2)\` for every amount in API responses, so the API would still print 412.35 even with a correct calculation. This must be fixed too.
- src/api/routes.ts:${lineIn('src/api/routes.ts', 'toFixed(2)')}: the tax preview endpoint formats with 2 decimals.
- src/billing/credit-note.ts:${lineIn('src/billing/credit-note.ts', 'Math.round')} and src/reports/revenue.ts: credit-note totals and the finance CSV also assume cents. Related, but not part of this request; I'll note them.
- src/auth/session.ts:${lineIn('src/auth/session.ts', 'Math.round')} rounds session expiry to seconds: unrelated, and the file is frozen, so I won't touch it.
Before editing, let me check every caller of calculateInvoiceTotals so I keep its contract intact.`,
    t.search('calculateInvoiceTotals', 'src'),
  );

  b.step(
    "Every caller (routes.ts, the CLI, the SDK re-export) uses `calculateInvoiceTotals(input, options?)`, as do the tests. I'll keep that signature and change only internals. Plan: make `roundMoney` delegate to `roundToCurrency` with the invoice currency, and give `computeLineTax` a currency. First the import, and replace the stale comment.",
    t.edit(
      INVOICE,
      code`
import { isSupportedCurrency, type RoundingMode, UnsupportedCurrencyError } from './currency';
import { computeLineTax, isTaxRegion, type LineTax, summarizeTax, type TaxCategory, type TaxRegion } from './tax';

// Money helpers (half-even rounding, FIN-1182) live in src/utils/money.ts.`,
      code`
import { isSupportedCurrency, type RoundingMode, roundToCurrency, UnsupportedCurrencyError } from './currency';
import { computeLineTax, isTaxRegion, type LineTax, summarizeTax, type TaxCategory, type TaxRegion } from './tax';

// All rounding goes through roundToCurrency() in ./currency, which knows the minor units of each currency.`,
    ),
  );

  b.step(
    'Now `roundMoney` itself: delegate to `roundToCurrency`, keeping the mode parameter and adding the currency.',
    t.edit(
      INVOICE,
      code`
function roundMoney(value: number, mode: RoundingMode = config.billing.roundingMode): number {
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  const isTie = Math.abs(scaled - floor - 0.5) < 1e-9;
  if (isTie && mode === 'half-even') {
    return (floor % 2 === 0 ? floor : floor + 1) / 100;
  }
  return Math.round(scaled) / 100;
}`,
      code`
/** Rounds to the minor units of the invoice currency (0, 2 or 3 decimals) with the given mode. */
function roundMoney(
  value: number,
  mode: RoundingMode = config.billing.roundingMode,
  currency: string = config.billing.defaultCurrency,
): number {
  return roundToCurrency(value, currency, mode);
}`,
    ),
  );

  b.step(
    'Pass the invoice currency for the line net and tax in `computeLine`.',
    t.edit(
      INVOICE,
      code`
  const net = roundMoney(listAmount - discount, mode);
  const tax = computeLineTax(net, line.taxCategory ?? 'standard', input.region);
  const taxAmount = roundMoney(tax.amount, mode);`,
      code`
  const net = roundMoney(listAmount - discount, mode, input.currency);
  const tax = computeLineTax(net, line.taxCategory ?? 'standard', input.region, input.currency);
  const taxAmount = roundMoney(tax.amount, mode, input.currency);`,
    ),
  );

  b.step(
    'And in the invoice-level totals.',
    t.edit(
      INVOICE,
      code`
  const subtotal = roundMoney(sum(lines.map((line) => line.net)), mode);
  const discountTotal = roundMoney(sum(lines.map((line) => line.discount)), mode);
  const taxTotal =
    config.billing.taxRounding === 'per-line'
      ? roundMoney(sum(lines.map((line) => line.tax)), mode)
      : roundMoney(sum(computed.map((entry) => entry.tax.amount)), mode);
  const total = roundMoney(subtotal + taxTotal, mode);`,
      code`
  const { currency } = input;
  const subtotal = roundMoney(sum(lines.map((line) => line.net)), mode, currency);
  const discountTotal = roundMoney(sum(lines.map((line) => line.discount)), mode, currency);
  const taxTotal =
    config.billing.taxRounding === 'per-line'
      ? roundMoney(sum(lines.map((line) => line.tax)), mode, currency)
      : roundMoney(sum(computed.map((entry) => entry.tax.amount)), mode, currency);
  const total = roundMoney(subtotal + taxTotal, mode, currency);`,
    ),
  );

  b.step(
    'Now tax.ts. Import `roundToCurrency`.',
    t.edit(
      TAX,
      "import { config } from '../config';",
      "import { config } from '../config';\nimport { roundToCurrency } from './currency';",
    ),
  );

  b.step(
    '`roundTax` rounds to the currency with the configured mode (half-even) instead of cents half-up, and `computeLineTax` gets a required `currency` parameter.',
    t.edit(
      TAX,
      code`
function roundTax(amount: number): number {
  // Every region we launched with uses cents.
  return Math.round(amount * 100) / 100;
}

/** Tax for one invoice line. \`net\` is the line amount after discount. */
export function computeLineTax(net: number, category: TaxCategory, region: TaxRegion): LineTax {
  const rate = rateFor(region, category);
  const raw = net * rate;
  return {
    category,
    rate,
    amount: config.billing.taxRounding === 'per-line' ? roundTax(raw) : raw,`,
      code`
function roundTax(amount: number, currency: string): number {
  return roundToCurrency(amount, currency, config.billing.roundingMode);
}

/** Tax for one invoice line. \`net\` is the line amount after discount, in \`currency\`. */
export function computeLineTax(net: number, category: TaxCategory, region: TaxRegion, currency: string): LineTax {
  const rate = rateFor(region, category);
  const raw = net * rate;
  return {
    category,
    rate,
    amount: config.billing.taxRounding === 'per-line' ? roundTax(raw, currency) : raw,`,
    ),
  );

  const taxTests = vfsTitles(TAX_TEST);
  const typeErrorIn = (testLine: string): Failure => ({
    error: "TypeError: Cannot read properties of undefined (reading 'toUpperCase')",
    frames: [
      at(CURRENCY, 'const code = currency.toUpperCase();', 'toUpperCase', 'minorUnitsFor'),
      at(CURRENCY, 'const decimals = minorUnitsFor(currency);', 'minorUnitsFor', 'roundToCurrency'),
      at(TAX, 'return roundToCurrency(amount, currency', 'roundToCurrency', 'roundTax'),
      at(TAX, 'roundTax(raw, currency)', 'roundTax', 'computeLineTax'),
      at(TAX_TEST, 'const taxFor =', 'computeLineTax(', 'taxFor'),
      at(TAX_TEST, testLine, 'taxFor'),
    ],
  });
  const taxFailures = new Map<string, Failure>([
    ['rounds per line to cents', typeErrorIn("taxFor(10.99, 'standard', 'DE')")],
    ['applies the New York combined sales tax', typeErrorIn("taxFor(100, 'standard', 'US-NY')")],
    ['charges no tax in Kuwait', typeErrorIn("taxFor(412.346, 'standard', 'KW')")],
  ]);
  const secondRun = renderVitest(repo, {
    script: `vitest run ${INVOICE_TEST} ${TAX_TEST}`,
    verbose: false,
    startAt: '10:21:42',
    files: [
      {
        file: INVOICE_TEST,
        tests: invoiceTests.map((title) =>
          title.at(-1) === 'applies percentage discounts in JPY without fractional yen'
            ? { title, failure: discountFailure }
            : { title },
        ),
      },
      {
        file: TAX_TEST,
        tests: taxTests.map((title) => {
          const failure = taxFailures.get(title.at(-1) ?? '');
          return failure ? { title, failure } : { title };
        }),
      },
    ],
  });
  b.step(
    'Running the invoice and tax tests.',
    t.test(`npm test -- ${INVOICE_TEST} ${TAX_TEST}`, secondRun.output, secondRun.exitCode),
  );

  const tscPosition = (file: string, line: string, column: string): string => {
    const position = repo.position(file, line, column);
    return `${file}(${position.line},${position.column})`;
  };
  b.step(
    `The three KWD/JPY/BHD cases pass now. Two problems left:
1. The JPY discount test still gets a line discount of 1499.85: I did not pass the currency for the discount, and because \`roundMoney\` defaults the currency to EUR nothing complained.
2. tax.test.ts calls \`computeLineTax\` with three arguments, so \`currency\` is undefined and \`minorUnitsFor\` throws. Other callers will have the same problem.
Let me run the type checker to find every call site the new parameter breaks.`,
    tsc('npx tsc --noEmit', [
      `${tscPosition('src/api/routes.ts', 'computeLineTax(net, category, region)', 'computeLineTax')}: error TS2554: Expected 4 arguments, but got 3.`,
      `${tscPosition('src/billing/credit-note.ts', 'computeLineTax(line.amount', 'computeLineTax')}: error TS2554: Expected 4 arguments, but got 3.`,
      `${tscPosition(TAX_TEST, 'computeLineTax(net, category, region)', 'computeLineTax')}: error TS2554: Expected 4 arguments, but got 3.`,
    ]),
  );

  b.step(
    "tsc finds the three `computeLineTax` callers but, as expected, not the discount: the default parameter hides it. I'll remove the defaults from `roundMoney` so the compiler catches any call without a currency. Let me re-read invoice.ts in its current state first.",
    t.read(INVOICE),
  );

  b.step(
    `Besides the discount (line ${lineIn(INVOICE, 'const discount = roundMoney(')}), the line gross (line ${lineIn(INVOICE, 'gross: roundMoney(')}) and the tax breakdown (line ${lineIn(INVOICE, '[key, roundMoney(amount, mode)]')}) still round without a currency; the tests don't cover those, so they would have stayed wrong for KWD. First, make the currency required.`,
    t.edit(
      INVOICE,
      code`
function roundMoney(
  value: number,
  mode: RoundingMode = config.billing.roundingMode,
  currency: string = config.billing.defaultCurrency,
): number {`,
      'function roundMoney(value: number, mode: RoundingMode, currency: string): number {',
    ),
  );

  b.step(
    'Now every amount in `computeLine` uses the invoice currency.',
    t.edit(
      INVOICE,
      code`
  const discount = roundMoney(listAmount * ((line.discountPercent ?? 0) / 100), mode);
  const net = roundMoney(listAmount - discount, mode, input.currency);
  const tax = computeLineTax(net, line.taxCategory ?? 'standard', input.region, input.currency);
  const taxAmount = roundMoney(tax.amount, mode, input.currency);
  return {
    totals: {
      sku: line.sku,
      quantity: line.quantity,
      net,
      discount,
      tax: taxAmount,
      taxRate: tax.rate,
      gross: roundMoney(net + taxAmount, mode),`,
      code`
  const { currency } = input;
  const discount = roundMoney(listAmount * ((line.discountPercent ?? 0) / 100), mode, currency);
  const net = roundMoney(listAmount - discount, mode, currency);
  const tax = computeLineTax(net, line.taxCategory ?? 'standard', input.region, currency);
  const taxAmount = roundMoney(tax.amount, mode, currency);
  return {
    totals: {
      sku: line.sku,
      quantity: line.quantity,
      net,
      discount,
      tax: taxAmount,
      taxRate: tax.rate,
      gross: roundMoney(net + taxAmount, mode, currency),`,
    ),
  );

  b.step(
    'And the tax breakdown.',
    t.edit(
      INVOICE,
      '      Object.entries(breakdown).map(([key, amount]) => [key, roundMoney(amount, mode)]),',
      '      Object.entries(breakdown).map(([key, amount]) => [key, roundMoney(amount, mode, currency)]),',
    ),
  );

  b.step('Now the `computeLineTax` callers. Let me see them in context.', t.search('computeLineTax\\(', '.'));

  b.step(
    'credit-note.ts and the test helper are one-liners. For routes.ts I need to see how `taxPreview` reads its query parameters.',
    t.read('src/api/routes.ts'),
  );

  b.step(
    "`taxPreview` has no currency at all. I'll accept an optional `currency` query parameter that defaults to `config.billing.defaultCurrency` (EUR, so existing clients get the same answer), reject unsupported codes with the existing 400 error shape, and format the amount with the currency's decimals instead of `toFixed(2)`. Imports first.",
    t.edit(
      'src/api/routes.ts',
      "import { UnsupportedCurrencyError } from '../billing/currency';",
      "import { isSupportedCurrency, minorUnitsFor, UnsupportedCurrencyError } from '../billing/currency';",
    ),
  );

  b.step(
    'Now the handler.',
    t.edit(
      'src/api/routes.ts',
      code`
  const category = (req.query.get('category') ?? 'standard') as TaxCategory;
  if (!Number.isFinite(net) || !isTaxRegion(region)) {
    return { status: 400, body: { error: 'Query parameters net (number) and region are required' } };
  }
  const tax = computeLineTax(net, category, region);
  return { status: 200, body: { ...tax, amount: tax.amount.toFixed(2) } };`,
      code`
  const category = (req.query.get('category') ?? 'standard') as TaxCategory;
  const currency = (req.query.get('currency') ?? config.billing.defaultCurrency).toUpperCase();
  if (!Number.isFinite(net) || !isTaxRegion(region)) {
    return { status: 400, body: { error: 'Query parameters net (number) and region are required' } };
  }
  if (!isSupportedCurrency(currency)) {
    return badRequest(new UnsupportedCurrencyError(currency));
  }
  const tax = computeLineTax(net, category, region, currency);
  return { status: 200, body: { ...tax, currency, amount: tax.amount.toFixed(minorUnitsFor(currency)) } };`,
    ),
  );

  b.step(
    `credit-note.ts: the credit note has the invoice's currency, so pass it through. (Its total on line ${lineIn('src/billing/credit-note.ts', 'Math.round')} still rounds to cents; I'm leaving that for a follow-up since credit notes are outside this request.)`,
    t.edit(
      'src/billing/credit-note.ts',
      '    tax += computeLineTax(line.amount, line.taxCategory, region).amount;',
      '    tax += computeLineTax(line.amount, line.taxCategory, region, invoice.currency).amount;',
    ),
  );

  b.step(
    "tax.test.ts: every test goes through the `taxFor` helper with EUR-style amounts, so the helper passes 'EUR'. This adapts the call to the new signature only; no expectation changes.",
    t.edit(
      TAX_TEST,
      'const taxFor = (net: number, category: TaxCategory, region: TaxRegion) => computeLineTax(net, category, region);',
      "const taxFor = (net: number, category: TaxCategory, region: TaxRegion) => computeLineTax(net, category, region, 'EUR');",
    ),
  );

  const thirdRun = renderVitest(repo, {
    script: `vitest run ${INVOICE_TEST} ${TAX_TEST}`,
    verbose: false,
    startAt: '10:26:19',
    files: [passing(INVOICE_TEST), passing(TAX_TEST)],
  });
  b.step(
    'Type check and the two billing test files again.',
    t.test(`npx tsc --noEmit && npm test -- ${INVOICE_TEST} ${TAX_TEST}`, thirdRun.output, thirdRun.exitCode),
  );

  b.step(
    `tsc is clean and all ${invoiceTests.length + taxTests.length} tests pass, including the four minor-unit tests, which I did not modify. What remains for the bug is the API output: serializers.ts formats every amount with \`toFixed(2)\`.`,
    t.search('^import|toFixed', 'src/api/serializers.ts'),
  );

  b.step(
    'Every amount goes through the `amount` closure inside `serializeTotals` (it is the only `toFixed` in the file), and `serializeTotals` has the invoice currency at hand. Import `minorUnitsFor` first.',
    t.edit(
      'src/api/serializers.ts',
      "import { UnsupportedCurrencyError } from '../billing/currency';",
      "import { minorUnitsFor, UnsupportedCurrencyError } from '../billing/currency';",
    ),
  );

  b.step(
    'And format with the currency\'s decimals, so INV-20931 is sent as "412.346" and JPY amounts without decimals.',
    t.edit(
      'src/api/serializers.ts',
      '  const amount = (value: number): string => value.toFixed(2);',
      '  const decimals = minorUnitsFor(totals.currency);\n  const amount = (value: number): string => value.toFixed(decimals);',
    ),
  );

  const fullSuiteOrder = [
    'test/billing/currency.test.ts',
    INVOICE_TEST,
    TAX_TEST,
    'test/billing/credit-note.test.ts',
    'test/auth/session.test.ts',
    'test/api/serializers.test.ts',
    'test/api/routes.test.ts',
    'test/api/session-routes.test.ts',
    CLI_TEST,
    'test/db/invoice-repo.test.ts',
    'test/reports/revenue.test.ts',
  ];
  const usageStderr = (message: string): string => `${message}\n${usageText(repo)}`;
  const suiteFile = (file: string): TestFile => {
    const unopened = suites[file];
    const tests = (unopened ?? vfsTitles(file)).map((title) => ({ title }));
    if (file === CLI_TEST) {
      return {
        file,
        tests,
        stderr: [
          {
            title: ['main', 'returns 64 on a usage error'],
            text: usageStderr('--batch-size must be an integer between 1 and 5000, got lots'),
          },
        ],
      };
    }
    return { file, tests };
  };
  const fullRun = renderVitest(repo, {
    script: 'vitest run --reporter=verbose',
    verbose: true,
    startAt: '10:31:55',
    files: fullSuiteOrder.map(suiteFile),
  });
  const fullRunTests = fullSuiteOrder.map(suiteFile).reduce((sum, file) => sum + file.tests.length, 0);
  b.step(
    'Now the full suite once, as you asked. Verbose, so I can see whether anything else (serializers, routes, credit notes) depended on the old rounding.',
    t.test('npm test -- --reporter=verbose', fullRun.output, fullRun.exitCode),
  );

  b.say(`The rounding fix is done.

**Root cause.** \`roundMoney()\` in src/billing/invoice.ts always rounded to 2 decimals: it was inlined from the deleted src/utils/money.ts (c52d0e9) and never learned about minor units when zero- and three-decimal currencies were added. \`roundTax()\` in tax.ts did \`Math.round(x * 100) / 100\` (2 decimals, half-up), and the API serializer used \`toFixed(2)\`.

**Changes**
- invoice.ts: all rounding goes through \`roundToCurrency()\` (src/billing/currency.ts) with the invoice currency and \`config.billing.roundingMode\` (half-even). \`roundMoney\` has no default currency any more, so a missed call is a compile error (that caught the line gross and the breakdown). \`calculateInvoiceTotals(input, options?)\` is unchanged.
- tax.ts: \`computeLineTax(net, category, region, currency)\` has a new required \`currency\`; per-line tax uses the currency's minor units and the configured mode.
- Callers: routes.ts (\`GET /v2/tax/preview\` takes an optional \`currency\`, default EUR), credit-note.ts, and the \`taxFor\` helper in test/billing/tax.test.ts (passes 'EUR'; no expectations changed).
- serializers.ts: amounts are sent with the currency's decimals ("412.346" KWD, "4072" JPY).

**Verification.** tsc clean; test/billing/invoice.test.ts ${invoiceTests.length}/${invoiceTests.length} (the four minor-unit tests pass unmodified); full suite ${fullSuiteOrder.length} files, ${fullRunTests} tests passed.

**Left alone / follow-ups**
- src/auth/session.ts untouched (SEC-204); its search hit is unrelated session-expiry rounding.
- credit-note.ts still rounds credit-note totals to cents and src/reports/revenue.ts writes the finance CSV with \`toFixed(2)\`: wrong for JPY/KWD/BHD, but outside this request.
- Stored invoices keep their old totals until recalculated.`);

  // --- Part 2: the --dry-run flag ----------------------------------------------------------------------------

  b.user(SECOND_REQUEST);

  b.step(
    "I'll read the CLI and its existing tests, and list the test folder to see which helpers exist.",
    t.read(CLI),
    t.read(CLI_TEST),
    t.list('test'),
  );

  b.step(
    `Plan:
- parse \`--dry-run\`/\`-n\` with the existing \`parseArgs\` call (no new dependencies), and reject it together with \`--force\` by throwing \`UsageError\`; \`main\` already maps usage errors to exit code 64;
- in \`recalculateInvoices\`, collect the changed invoices and skip \`repo.save()\` and \`audit.record()\` when dry-running;
- a \`formatDryRunReport()\` that prints at most 50 rows, "... and N more" and the summary line; \`main\` returns 2 or 0 in dry-run mode.
The batch size default stays \`config.cli.recalculateBatchSize\` (250). Deltas are formatted with the currency's decimals, so I need \`minorUnitsFor\`.`,
    t.edit(
      CLI,
      "import { calculateInvoiceTotals, type InvoiceTotals } from '../billing/invoice';",
      "import { minorUnitsFor } from '../billing/currency';\nimport { calculateInvoiceTotals, type InvoiceTotals } from '../billing/invoice';",
    ),
  );

  b.step(
    'Usage text and the options type.',
    t.edit(
      CLI,
      code`
  --force            save every invoice, even when its totals did not change
  -h, --help         show this help
\`;

export interface RecalculateOptions {
  batchSize: number;
  since?: string;
  currency?: string;
  force: boolean;
  help: boolean;
}`,
      code`
  --force            save every invoice, even when its totals did not change
  -n, --dry-run      list the invoices that would change and write nothing;
                     exit code 2 if any invoice would change, 0 otherwise
  -h, --help         show this help
\`;

export interface RecalculateOptions {
  batchSize: number;
  since?: string;
  currency?: string;
  force: boolean;
  /** Only report what would change: no repo.save(), no audit entries. */
  dryRun: boolean;
  help: boolean;
}`,
    ),
  );

  b.step(
    'Argument parsing: the flag with its `-n` alias goes into the existing `parseArgs` options.',
    t.edit(
      CLI,
      code`
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },`,
      code`
      force: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', short: 'n', default: false },
      help: { type: 'boolean', short: 'h', default: false },`,
    ),
  );

  b.step(
    'The `--force` conflict is a `UsageError` (so `main` returns 64 before touching the database), and the option is returned.',
    t.edit(
      CLI,
      code`
  return {
    batchSize,
    since: values.since,
    currency: values.currency?.toUpperCase(),
    force: values.force,
    help: values.help,
  };`,
      code`
  if (values['dry-run'] && values.force) {
    throw new UsageError('--dry-run cannot be combined with --force');
  }
  return {
    batchSize,
    since: values.since,
    currency: values.currency?.toUpperCase(),
    force: values.force,
    dryRun: values['dry-run'],
    help: values.help,
  };`,
    ),
  );

  b.step(
    'The result type gets the list of changed invoices.',
    t.edit(
      CLI,
      code`
export interface RecalculateResult {
  scanned: number;
  changed: number;
  saved: number;
}

export async function recalculateInvoices(
  options: RecalculateOptions,
  deps: RecalculateDeps,
): Promise<RecalculateResult> {
  const result: RecalculateResult = { scanned: 0, changed: 0, saved: 0 };`,
      code`
export interface TotalsChange {
  id: string;
  currency: string;
  before: number;
  after: number;
}

export interface RecalculateResult {
  scanned: number;
  changed: number;
  saved: number;
  /** Invoices whose totals changed, in scan order. */
  changes: TotalsChange[];
}

export async function recalculateInvoices(
  options: RecalculateOptions,
  deps: RecalculateDeps,
): Promise<RecalculateResult> {
  const result: RecalculateResult = { scanned: 0, changed: 0, saved: 0, changes: [] };`,
    ),
  );

  b.step(
    'In the loop: record each change, and skip every write in dry-run mode. The `continue` comes before both `repo.save()` and `audit.record()`, so neither can run.',
    t.edit(
      CLI,
      code`
      if (changed) {
        result.changed += 1;
      }
      if (!changed && !options.force) {
        continue;
      }`,
      code`
      if (changed) {
        result.changed += 1;
        result.changes.push({ id: stored.input.id, currency: stored.input.currency, before: stored.total, after: next.total });
      }
      if (options.dryRun || (!changed && !options.force)) {
        continue;
      }`,
    ),
  );

  b.step(
    '`main` prints the report and returns 2 or 0 in dry-run mode. The report functions go after `main`.',
    t.edit(
      CLI,
      code`
  const result = await recalculateInvoices(options, resolved);
  resolved.out(
    \`done: \${result.saved} invoices saved (\${result.changed} with changed totals, \${result.scanned} scanned)\`,
  );
  return 0;
}`,
      code`
  const result = await recalculateInvoices(options, resolved);
  if (options.dryRun) {
    for (const line of formatDryRunReport(result)) {
      resolved.out(line);
    }
    return result.changed > 0 ? 2 : 0;
  }
  resolved.out(
    \`done: \${result.saved} invoices saved (\${result.changed} with changed totals, \${result.scanned} scanned)\`,
  );
  return 0;
}

/** At most this many invoices are listed by --dry-run; the rest are only counted. */
export const DRY_RUN_TABLE_LIMIT = 50;

const TABLE_HEADER = [
  'invoice'.padEnd(14),
  'currency',
  'stored total'.padStart(14),
  'new total'.padStart(14),
  'delta'.padStart(12),
];

function formatRow(change: TotalsChange): string {
  const decimals = minorUnitsFor(change.currency);
  const delta = change.after - change.before;
  return [
    change.id.padEnd(14),
    change.currency.padEnd(8),
    change.before.toFixed(decimals).padStart(14),
    change.after.toFixed(decimals).padStart(14),
    \`\${delta >= 0 ? '+' : '-'}\${Math.abs(delta).toFixed(decimals)}\`.padStart(12),
  ].join('  ');
}

/** The --dry-run report: a table of at most DRY_RUN_TABLE_LIMIT changed invoices, then exactly one summary line. */
export function formatDryRunReport(result: RecalculateResult): string[] {
  const lines: string[] = [];
  if (result.changes.length > 0) {
    lines.push(TABLE_HEADER.join('  '));
    const shown = Math.min(result.changes.length, DRY_RUN_TABLE_LIMIT);
    for (let i = 0; i < shown; i++) {
      lines.push(formatRow(result.changes[i]));
    }
    if (result.changes.length > shown) {
      lines.push(\`... and \${result.changes.length - shown} more\`);
    }
  }
  lines.push(\`Dry run: \${result.changed} of \${result.scanned} invoices would change; nothing was written.\`);
  return lines;
}`,
    ),
  );

  b.step(
    'Type check before writing tests.',
    tsc('npx tsc --noEmit', [
      `${tscPosition(CLI, 'lines.push(formatRow(result.changes[i]));', 'result.changes[i]')}: error TS2345: Argument of type 'TotalsChange | undefined' is not assignable to parameter of type 'TotalsChange'.`,
      "  Type 'undefined' is not assignable to type 'TotalsChange'.",
    ]),
  );

  b.step(
    '`noUncheckedIndexedAccess` is on, so indexing gives `TotalsChange | undefined`. A `for...of` loop with a break avoids the index.',
    t.edit(
      CLI,
      code`
    const shown = Math.min(result.changes.length, DRY_RUN_TABLE_LIMIT);
    for (let i = 0; i < shown; i++) {
      lines.push(formatRow(result.changes[i]));
    }
    if (result.changes.length > shown) {
      lines.push(\`... and \${result.changes.length - shown} more\`);
    }`,
      code`
    const rows: string[] = [];
    for (const change of result.changes) {
      rows.push(formatRow(change));
      if (rows.length > DRY_RUN_TABLE_LIMIT) {
        break;
      }
    }
    lines.push(...rows);
    const hidden = result.changes.length - rows.length;
    if (hidden > 0) {
      lines.push(\`... and \${hidden} more\`);
    }`,
    ),
  );

  b.step(
    'Tests go in a new file that reuses the fakes from test/helpers/fakes.ts, one test per requirement: both spellings of the flag, batch size 250, no saves or audit entries, the table and exact summary line, the 50-row limit (60 changed invoices), exit codes 2 and 0, and --dry-run with --force giving 64 before anything is read. INV-1 has the old 2-decimal total (112.100 KWD instead of 112.096), just like the invoices ops will see.',
    t.write(DRY_RUN_TEST, dryRunTestTs()),
  );

  const dryRunTests = vfsTitles(DRY_RUN_TEST);
  const rowsFailure: Failure = {
    error: `AssertionError: expected [ …(${DRY_RUN_TABLE_LIMIT_VALUE + 1}) ] to have a length of ${DRY_RUN_TABLE_LIMIT_VALUE} but got ${DRY_RUN_TABLE_LIMIT_VALUE + 1}`,
    diff: { expected: String(DRY_RUN_TABLE_LIMIT_VALUE), received: String(DRY_RUN_TABLE_LIMIT_VALUE + 1) },
    frames: [at(DRY_RUN_TEST, 'expect(rows).toHaveLength(DRY_RUN_TABLE_LIMIT);', 'toHaveLength')],
  };
  const cliRunFiles = (failing: boolean): TestFile[] => {
    const dryRun = suiteFile(DRY_RUN_TEST);
    return [
      {
        ...dryRun,
        tests: dryRunTests.map((title) =>
          failing && title.at(-1) === 'lists at most 50 invoices and counts the rest'
            ? { title, failure: rowsFailure }
            : { title },
        ),
      },
      suiteFile(CLI_TEST),
    ];
  };
  const cliRun = renderVitest(repo, {
    script: 'vitest run test/cli',
    verbose: false,
    startAt: '11:02:36',
    files: cliRunFiles(true),
  });
  b.step('Running the CLI tests.', t.test('npm test -- test/cli', cliRun.output, cliRun.exitCode));

  b.step(
    `51 rows instead of 50: an off-by-one in the loop I just wrote (lines ${lineIn(CLI, 'const rows: string[] = [];')}-${lineIn(CLI, 'const rows: string[] = [];') + 6}). The row is pushed before the \`rows.length > DRY_RUN_TABLE_LIMIT\` check, so the loop only stops after row 51. \`slice\` says what is meant, with no index arithmetic and no possibly-undefined elements.`,
    t.edit(
      CLI,
      code`
    const rows: string[] = [];
    for (const change of result.changes) {
      rows.push(formatRow(change));
      if (rows.length > DRY_RUN_TABLE_LIMIT) {
        break;
      }
    }`,
      '    const rows = result.changes.slice(0, DRY_RUN_TABLE_LIMIT).map(formatRow);',
    ),
  );

  const cliRunPassing = renderVitest(repo, {
    script: 'vitest run test/cli',
    verbose: false,
    startAt: '11:04:10',
    files: cliRunFiles(false),
  });
  b.step('Re-running the CLI tests.', t.test('npm test -- test/cli', cliRunPassing.output, cliRunPassing.exitCode));

  b.step(
    `All ${dryRunTests.length + vfsTitles(CLI_TEST).length} CLI tests pass, including the existing ones, so non-dry-run behaviour is unchanged. Now the docs: I'll read the README, docs/cli.md and the CHANGELOG together.`,
    t.read('README.md'),
    t.read('docs/cli.md'),
    t.read('CHANGELOG.md'),
  );

  b.step(
    'The README still says all amounts are rounded to 2 decimals, which is no longer true, and the tax preview row should mention the new `currency` parameter. Both are in adjacent sections, so I can do one edit.',
    t.edit(
      'README.md',
      code`
- All amounts are rounded to 2 decimal places with banker's rounding (half-even), as required by finance (FIN-1182).
- Tax is computed and rounded per line, then summed (\`taxRounding: 'per-line'\` in \`src/config.ts\`).
- The API sends amounts as strings with two decimals, e.g. \`"58.31"\`.

## API

| Method | Path | Description |
| --- | --- | --- |
| GET | \`/v2/health\` | Liveness probe |
| GET | \`/v2/invoices/:id\` | Stored invoice with computed totals |
| POST | \`/v2/invoices\` | Create an invoice |
| POST | \`/v2/invoices/:id/totals\` | Preview totals for an invoice body (\`?breakdown=1\` adds tax per rate) |
| GET | \`/v2/tax/preview\` | Tax for one amount, e.g. \`?net=100&region=DE&category=standard\` |`,
      code`
- Every amount is rounded to the minor units of its currency with \`roundToCurrency()\` (\`src/billing/currency.ts\`),
  using \`config.billing.roundingMode\` (banker's rounding, half-even, as required by finance, FIN-1182):
  - 0 decimals: ${ZERO_DECIMAL.join(', ')}
  - 3 decimals: ${THREE_DECIMAL.join(', ')}
  - 2 decimals: every other supported currency
- Tax is computed and rounded per line, then summed (\`taxRounding: 'per-line'\` in \`src/config.ts\`).
- The API sends amounts as strings with the currency's decimals, e.g. \`"58.31"\` (EUR), \`"4072"\` (JPY),
  \`"412.346"\` (KWD).

## API

| Method | Path | Description |
| --- | --- | --- |
| GET | \`/v2/health\` | Liveness probe |
| GET | \`/v2/invoices/:id\` | Stored invoice with computed totals |
| POST | \`/v2/invoices\` | Create an invoice |
| POST | \`/v2/invoices/:id/totals\` | Preview totals for an invoice body (\`?breakdown=1\` adds tax per rate) |
| GET | \`/v2/tax/preview\` | Tax for one amount, e.g. \`?net=100&region=DE&category=standard&currency=EUR\` (currency defaults to EUR) |`,
    ),
  );

  b.step(
    'README: the CLI section, with the dry-run usage.',
    t.edit(
      'README.md',
      'Run it after any change to rounding or tax rules. Options are documented in `docs/cli.md`.',
      code`
Run it after any change to rounding or tax rules. To see the impact first, add \`--dry-run\` (or \`-n\`): it lists the
invoices that would change (at most 50 rows), ends with a summary line, writes nothing (no saves, no audit entries)
and exits with 2 if any invoice would change, 0 otherwise. It cannot be combined with \`--force\`.

\`\`\`sh
npm run recalculate -- --dry-run --currency KWD
\`\`\`

Options and exit codes are documented in \`docs/cli.md\`.`,
    ),
  );

  b.step(
    'docs/cli.md: the option, the new exit code 2, and an example of the dry-run output.',
    t.edit(
      'docs/cli.md',
      code`
| \`--force\` | off | Save every invoice, even if its totals did not change (regenerates the PDFs) |
| \`-h\`, \`--help\` | - | Print usage |

### Exit codes

| Code | Meaning |
| --- | --- |
| 0 | Finished |
| 1 | Unexpected error (database, bug); details on stderr |
| 64 | Usage error (unknown option, invalid value) |`,
      code`
| \`--force\` | off | Save every invoice, even if its totals did not change (regenerates the PDFs) |
| \`-n\`, \`--dry-run\` | off | Only report the invoices whose totals would change; writes nothing. Not allowed with \`--force\` |
| \`-h\`, \`--help\` | - | Print usage |

### Exit codes

| Code | Meaning |
| --- | --- |
| 0 | Finished; with \`--dry-run\`: no invoice would change |
| 1 | Unexpected error (database, bug); details on stderr |
| 2 | Only with \`--dry-run\`: at least one invoice would change |
| 64 | Usage error (unknown option, invalid value, \`--dry-run\` together with \`--force\`) |

### Dry run

\`--dry-run\` computes the new totals like a normal run but never calls \`repo.save()\` and writes no audit log
entries. It prints the invoices that would change (at most 50 rows, then \`... and N more\`) and exactly one summary
line:

\`\`\`
invoice         currency    stored total       new total         delta
INV-20931       KWD              412.350         412.346        -0.004
INV-20988       BHD               22.000          21.995        -0.005
...
Dry run: 137 of 2040 invoices would change; nothing was written.
\`\`\`

The deploy pipeline uses the exit code: 0 means nothing would change, 2 means the recalculation should be run.`,
    ),
  );

  b.step(
    'CHANGELOG: one Unreleased entry covering both the rounding fix and the flag, plus the `computeLineTax` signature change for anyone calling it directly.',
    t.edit(
      'CHANGELOG.md',
      '## Unreleased\n',
      code`
## Unreleased

### Fixed
- Invoice amounts (line discount, net, tax, gross, subtotal, total) are rounded to the minor units of the invoice
  currency instead of always 2 decimals: 0 for ${ZERO_DECIMAL.join(', ')}; 3 for ${THREE_DECIMAL.join(', ')}
  (SUP-3318, e.g. INV-20931 is 412.346 KWD, not 412.35). Per-line tax now uses the configured half-even rounding
  instead of half-up.
- The API sends amounts with the currency's decimals (\`"412.346"\` for KWD, \`"4072"\` for JPY).

### Added
- \`recalculate-invoices --dry-run\` (\`-n\`): lists the invoices whose totals would change (at most 50 rows) and writes
  nothing; exits with 2 when at least one invoice would change, 0 otherwise. Combining it with \`--force\` is a usage
  error (exit code 64).
- \`GET /v2/tax/preview\` accepts an optional \`currency\` parameter (default \`EUR\`).

### Changed
- \`computeLineTax()\` takes the currency as a fourth, required argument.
`,
    ),
  );

  const pushLine =
    '        result.changes.push({ id: stored.input.id, currency: stored.input.currency, before: stored.total, after: next.total });';
  const pushLineFormatted = code`
        result.changes.push({
          id: stored.input.id,
          currency: stored.input.currency,
          before: stored.total,
          after: next.total,
        });`;
  const biomeFiles = repo.contentPaths().filter((path) => /^(src|test)\/.*\.ts$/.test(path)).length;
  b.step(
    'Lint and type check before the final test run.',
    t.bash(
      'npx biome check src test && npx tsc --noEmit',
      biomeFormatError(repo, CLI, pushLine, pushLineFormatted, biomeFiles),
      1,
    ),
  );

  repo.replace(CLI, pushLine, pushLineFormatted);
  b.step(
    'Only a formatting issue: my `changes.push(...)` line is over 120 columns. Letting Biome format that one file, then re-checking everything.',
    t.bash(
      `npx biome check --write ${CLI} && npx biome check src test && npx tsc --noEmit`,
      [`Checked 1 file in 4ms. Fixed 1 file.`, `Checked ${biomeFiles} files in 29ms. No fixes applied.`].join('\n'),
    ),
  );

  const finalOrder = fullSuiteOrder.flatMap((file) => (file === CLI_TEST ? [DRY_RUN_TEST, CLI_TEST] : [file]));
  const finalRun = renderVitest(repo, {
    script: 'vitest run',
    verbose: false,
    startAt: '11:09:48',
    files: finalOrder.map(suiteFile),
  });
  const finalTests = finalOrder.map(suiteFile).reduce((sum, file) => sum + file.tests.length, 0);
  b.step('Lint and types are clean. Final full test run.', t.test('npm test', finalRun.output, finalRun.exitCode));

  b.step(
    'Everything passes. Let me list the changed files for the summary.',
    t.bash('git status --short && git diff --stat', `${repo.gitStatus()}\n${repo.diffStat()}`),
  );

  b.say(`Both tasks are done; nothing is committed.

**1. Rounding fix (SUP-3318).** Amounts in invoice.ts and per-line tax in tax.ts are rounded with \`roundToCurrency()\` to the currency's minor units (0 decimals: ${ZERO_DECIMAL.join(', ')}; 3: ${THREE_DECIMAL.join(', ')}; otherwise 2) using \`config.billing.roundingMode\` (half-even, FIN-1182), so INV-20931 totals 412.346 KWD. The API uses the currency's decimals too. \`calculateInvoiceTotals(input, options?)\` is unchanged; \`computeLineTax()\` gained a required \`currency\` (not in the SDK; callers updated).

**2. \`recalculate-invoices --dry-run\` / \`-n\`**
- Parsed with the existing \`node:util\` \`parseArgs\`; no new dependencies; default batch size still 250 (\`config.cli.recalculateBatchSize\`).
- Writes nothing: the loop \`continue\`s before \`repo.save()\` and \`audit.record()\`; the tests check that the fakes recorded neither.
- Prints a table (invoice, currency, stored total, new total, delta) of at most 50 rows, then \`... and N more\`, then exactly one line \`Dry run: N of M invoices would change; nothing was written.\`
- Exit code 2 if any invoice would change, else 0. \`--dry-run\` with \`--force\` is a usage error: exit 64, nothing read.
- New test/cli/recalculate-dry-run.test.ts (${dryRunTests.length} tests); it caught an off-by-one in the row limit, now fixed.

**Docs:** README.md (rounding rules, tax preview \`currency\`, dry-run usage), docs/cli.md (option, exit code 2, example), CHANGELOG.md "Unreleased" (Fixed / Added / Changed).

**Verification:** \`biome check src test\` and \`tsc --noEmit\` clean; full suite ${finalOrder.length} files, ${finalTests} tests passed.

**Constraints kept:** session.ts untouched (SEC-204); no hardcoded rounding mode; no new dependencies; batch size unchanged; the only test edit is the \`taxFor\` helper's call.

**Open items:** credit-note totals still round to cents and the finance CSV (reports/revenue.ts) uses \`toFixed(2)\`; worth a follow-up. Rollout: run \`npm run recalculate -- --dry-run\` in staging first, then the real run.`);

  const assistantSteps = b.messages.filter((message) => message.role === 'assistant').length;
  const toolCalls = b.messages.reduce((sum, message) => sum + (message.toolCalls?.length ?? 0), 0);
  return {
    id: 'demo/coding-agent',
    source: 'context-compression/demo',
    task: FIRST_REQUEST,
    messages: b.messages,
    meta: {
      description:
        'Self-authored coding-agent session in a fictional TypeScript service (invoice-service): the agent fixes currency rounding (minor units for JPY/KWD/BHD), then, after a second user message with concrete constraints, adds a --dry-run flag to a CLI, writes tests and updates the docs. Written for this project; no third-party data.',
      steps: assistantSteps,
      toolCalls,
      repository: REPO_ROOT,
      facts: PLANTED_FACTS,
    },
  };
}

const DRY_RUN_TABLE_LIMIT_VALUE = 50;

/** The CLI usage text as the fictional recalculate.ts prints it (the USAGE constant, with the config default). */
function usageText(repo: FictionalRepo): string {
  const source = repo.content('src/cli/recalculate.ts');
  const match = /export const USAGE = `([\s\S]*?)`;/.exec(source);
  if (!match) {
    throw new Error('USAGE not found in recalculate.ts');
  }
  return (match[1] ?? '').replace(/\$\{config\.cli\.recalculateBatchSize\}/, '250');
}

// ---------------------------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------------------------

/** Structural checks; the generator refuses to write a session that fails them. */
function validateSession(value: Session): void {
  const problems: string[] = [];
  const roles = new Set<Role>(['system', 'user', 'assistant', 'tool']);
  const seenIds = new Set<string>();
  value.messages.forEach((message, index) => {
    if (!roles.has(message.role)) {
      problems.push(`message ${index}: invalid role ${message.role}`);
    }
    if (message.role === 'tool') {
      return;
    }
    const calls = message.toolCalls ?? [];
    const following = value.messages.slice(index + 1);
    const end = following.findIndex((next) => next.role !== 'tool');
    const results = end < 0 ? following : following.slice(0, end);
    if (message.role !== 'assistant' && calls.length > 0) {
      problems.push(`message ${index}: only assistant messages may call tools`);
    }
    if (results.length !== calls.length) {
      problems.push(`message ${index}: ${calls.length} tool calls but ${results.length} tool messages follow`);
    }
    calls.forEach((call, callIndex) => {
      if (seenIds.has(call.id)) {
        problems.push(`message ${index}: duplicate tool call id ${call.id}`);
      }
      seenIds.add(call.id);
      const matching = results.filter((result) => result.toolCallId === call.id);
      if (matching.length !== 1 || matching[0]?.toolName !== call.name || results[callIndex]?.toolCallId !== call.id) {
        problems.push(`message ${index}: tool call ${call.id} needs exactly one matching tool message, in order`);
      }
    });
  });
  const steps = value.messages.filter((message) => message.role === 'assistant').length;
  if (steps !== value.meta.steps || steps < 45 || steps > 60) {
    problems.push(`assistant steps: ${steps} (meta says ${value.meta.steps}; expected 45 to 60)`);
  }
  if (problems.length > 0) {
    throw new Error(`invalid session:\n${problems.join('\n')}`);
  }
}

const session = buildSession();
validateSession(session);
const target = join(dirname(fileURLToPath(import.meta.url)), 'coding-agent.jsonl');
writeFileSync(target, `${JSON.stringify(session)}\n`);
const chars = session.messages.reduce((sum, message) => sum + message.content.length, 0);
console.log(
  `wrote ${target}: ${session.messages.length} messages, ${session.meta.steps} assistant steps, ${chars} characters of content`,
);
