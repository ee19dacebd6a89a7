/** The side steps of the generated agent: outputs a task does not need, which the agent never uses again. */
import { directoryListing, htmlPage, type ListingEntry, prettyJson, searchHits, sqlTable } from './outputs.js';
import { clock, customer, lastYear, moduleFiles, region, SERVICES } from './world.js';
import type { RunWriter, SideStep } from './writer.js';

const FOLDERS = ['deploy/terraform', 'docs/runbooks', 'scripts/maintenance', 'config/feature-flags', 'infra/alerts'];
const WORDS = ['timeout', 'retry', 'backoff', 'quota', 'rollout', 'shard', 'cache', 'webhook', 'ledger', 'invoice'];
const EXTENSIONS = ['py', 'yaml', 'md', 'tf', 'json'];

/** A listing of a folder the task does not need. */
function listFolder(writer: RunWriter): void {
  const { random } = writer;
  const folder = random.pick(FOLDERS);
  const entries: ListingEntry[] = Array.from({ length: random.int(12, 40) }, (_unused, index) => ({
    name: `${random.pick(WORDS)}_${random.pick(WORDS)}_${random.int(1, 99)}${index % 4 === 0 ? '' : `.${random.pick(EXTENSIONS)}`}`,
    directory: index % 4 === 0,
    size: index % 4 === 0 ? '-' : `${random.int(1, 90)}.${random.int(0, 9)} KB`,
    modified: `${lastYear(random)} ${clock(random).slice(0, 5)}`,
  }));
  writer.act(
    `Let me look at ${folder} first.`,
    'list_dir',
    { path: folder, show_hidden: false },
    directoryListing(folder, entries),
  );
  writer.remarkLater(`${folder} holds nothing relevant (${entries[1]?.name} is unrelated).`);
}

/** A search that finds lines of no use to the task. */
function searchElsewhere(writer: RunWriter): void {
  const { random } = writer;
  const word = random.pick(WORDS);
  const service = random.pick(SERVICES);
  const hits = Array.from({ length: random.int(5, 24) }, () => ({
    path: `services/${service}/${random.pick(moduleFiles(service))}`,
    line: random.int(10, 900),
    text: `${word}_${random.pick(WORDS)} = settings.get("${service.toUpperCase()}_${word.toUpperCase()}_${random.int(1, 99)}", ${random.int(2, 600)})`,
  }));
  writer.act(
    `Searching for ${word} settings.`,
    'grep_files',
    { pattern: word, path: `services/${service}`, max_results: 50 },
    searchHits(word, hits),
  );
  writer.remarkLater(`The ${word} settings (line ${hits[0]?.line} of ${hits[0]?.path}) are not it.`);
}

/** A runbook page read for background. */
function readRunbook(writer: RunWriter): void {
  const { random } = writer;
  const topic = `${random.pick(WORDS)}-${random.pick(WORDS)}`;
  const sections = Array.from({ length: random.int(6, 14) }, (_unused, index) => {
    const key = `${random.pick(WORDS)}_${random.pick(WORDS)}_ms`;
    return [
      `    <section id="step-${index + 1}">`,
      `      <h2>Step ${index + 1}</h2>`,
      `      <p>Check that <code>${key}</code> is at most ${random.int(100, 9000)} on every node, then confirm with the on-call lead before changing the ${random.pick(WORDS)} policy.</p>`,
      `      <p>If the dashboard shows a ${random.pick(WORDS)} alarm, wait for the next ${random.pick(WORDS)} window and repeat; see <a href="/runbooks/${random.pick(WORDS)}-${random.pick(WORDS)}">the related runbook</a>.</p>`,
      '    </section>',
    ].join('\n');
  });
  writer.act(
    `Reading the ${topic} runbook for context.`,
    'http_get',
    { url: `https://console.internal/runbooks/${topic}`, headers: { accept: 'text/html' } },
    htmlPage(`Runbook: ${topic}`, sections.join('\n'), random.code(7).toLowerCase()),
  );
  writer.remarkLater(`The ${topic} runbook does not cover this.`);
}

/** An environment check whose output the task does not need. */
function checkEnvironment(writer: RunWriter): void {
  const { random } = writer;
  const packages = ['requests', 'sqlalchemy', 'pydantic', 'httpx', 'orjson', 'tenacity', 'structlog', 'boto3'];
  const lines = packages.map((name) => `${name}==${random.int(0, 3)}.${random.int(0, 30)}.${random.int(0, 12)}`);
  const config = { region: region(random), worker_pool: random.int(4, 64), build_id: `b${random.digits(8)}` };
  writer.act(
    'Checking the environment the scripts run in.',
    'run_python',
    {
      code: 'import importlib.metadata as m, json\nfor d in sorted(m.distributions(), key=lambda d: d.name)[:8]: print(f"{d.name}=={d.version}")\nprint(json.dumps(json.load(open("/srv/app/runtime.json"))))',
      timeout_s: 30,
    },
    `${lines.join('\n')}\n${JSON.stringify(config)}\n`,
  );
  writer.remarkLater(`The environment looks fine (build ${config.build_id}).`);
}

/** An audit-log query whose rows the task does not need. */
function auditLog(writer: RunWriter): void {
  const { random } = writer;
  const rows = Array.from({ length: random.int(10, 30) }, () => [
    random.digits(8),
    `${lastYear(random)} ${clock(random)}`,
    random.pick(['admin.login', 'plan.change', 'key.rotate', 'export.csv', 'sso.update']),
    `usr_${random.code(8).toLowerCase()}`,
    random.pick(['ok', 'ok', 'ok', 'denied']),
  ]);
  writer.act(
    'Checking recent audit events.',
    'query_db',
    { sql: 'SELECT event_id, at, action, actor, outcome FROM audit_events ORDER BY at DESC LIMIT 30', database: 'ops' },
    sqlTable(['event_id', 'at', 'action', 'actor', 'outcome'], rows),
  );
  writer.remarkLater(`No audit event stands out (the last is ${rows[0]?.[0]}).`);
}

/** A customer lookup that finds someone else. */
function wrongCustomer(writer: RunWriter): void {
  const { random } = writer;
  const other = customer(random);
  writer.act(
    `Checking a similar account, ${other.name}.`,
    'lookup_customer',
    { query: other.name, include: ['profile'] },
    prettyJson({ matches: 1, customer: { ...other, status: 'active', tags: ['newsletter'] } }),
  );
  writer.remarkLater(`${other.id} is a different person.`);
}

/** Every side step, drawn at random between the steps of a task. */
export const SIDE_STEPS: readonly SideStep[] = [
  listFolder,
  searchElsewhere,
  readRunbook,
  checkEnvironment,
  auditLog,
  wrongCustomer,
];
