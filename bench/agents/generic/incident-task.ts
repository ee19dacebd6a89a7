/**
 * A service failing since a deploy. The task needs the degraded host, its release and error code (from the console
 * page), a request id and the failing region (from the logs), the file and line of the failing function, and puts
 * them all in the ticket it opens.
 */
import { htmlPage, htmlTable, prettyJson, pythonTraceback, searchHits } from './outputs.js';
import type { RunMemory } from './refund-task.js';
import { clock, hosts, release, requestId, SERVICES } from './world.js';
import type { RunWriter } from './writer.js';

/** Regions the services' validators do not know yet. */
const NEW_REGIONS = ['ap-south-2', 'me-central-1', 'sa-east-2', 'af-south-1'];

/** The facts of one incident. */
interface Incident {
  readonly service: string;
  readonly host: string;
  readonly release: string;
  readonly code: string;
  readonly since: string;
}

/** The console page of the service: its instances with state, release and error rate, and recent events. */
function consolePage(writer: RunWriter, incident: Incident, instances: readonly string[]): string {
  const { random } = writer;
  const rows = instances.map((name) => {
    const bad = name === incident.host;
    const rate = bad ? random.int(20, 60) : random.int(0, 1);
    return [
      name,
      bad ? 'degraded' : 'healthy',
      bad ? incident.release : release(random),
      `${rate}.${random.int(0, 9)}%`,
    ];
  });
  const events = [
    '    <ul class="events">',
    `      <li>${incident.since} ${incident.host}: error ${incident.code} rate above threshold</li>`,
    `      <li>${clock(random).slice(0, 5)} deploy ${incident.release} rolled out to ${incident.host}</li>`,
    `      <li>${clock(random).slice(0, 5)} autoscaler added ${instances[0]}</li>`,
    '    </ul>',
  ].join('\n');
  const table = htmlTable(['host', 'state', 'release', 'error rate'], rows, 'instances');
  return htmlPage(`Service ${incident.service}`, `${table}\n${events}`, random.code(7).toLowerCase());
}

/** Reads the logs and finds the failing function; returns a request id, the region, the file and the line. */
function findCause(writer: RunWriter, incident: Incident) {
  const { random } = writer;
  const thing = random.pick(['payload', 'address', 'quota', 'coupon']);
  const region = random.pick(NEW_REGIONS);
  const requests = Array.from({ length: random.int(4, 12) }, () => requestId(random));
  let line = random.int(1000, 5000);
  const hits = requests.map((id, index) => {
    line += random.int(3, 40);
    const at = `2025-06-${String(random.int(10, 28)).padStart(2, '0')}T${incident.since}:${String(index).padStart(2, '0')}Z`;
    return {
      path: `logs/${incident.service}/${incident.host}.log`,
      line,
      text: `${at} ERROR ${incident.code} request_id=${id} KeyError: '${region}' in validate_${thing}`,
    };
  });
  writer.act(
    `${incident.host} is degraded since ${incident.release}, with error ${incident.code}. Searching the logs for it.`,
    'grep_files',
    { pattern: incident.code, path: `logs/${incident.service}/`, max_results: 50 },
    searchHits(incident.code, hits),
  );
  writer.detour(0, 1);
  const file = `services/${incident.service}/validators.py`;
  const definition = random.int(30, 400);
  writer.act(
    `The failures are KeyError '${region}' in validate_${thing}. Finding that function.`,
    'grep_files',
    { pattern: `def validate_${thing}`, path: `services/${incident.service}` },
    searchHits(`def validate_${thing}`, [
      { path: file, line: definition, text: `def validate_${thing}(${thing}: dict, *, strict: bool = True) -> None:` },
    ]),
  );
  return { thing, region, request: requests[0] as string, file, line: definition + 3 };
}

/** Finds why a service fails since a deploy and opens a ticket with the facts; remembers it for a follow-up. */
export function incidentTask(writer: RunWriter, memory: RunMemory): void {
  const { random } = writer;
  const service = random.pick(SERVICES);
  const instances = hosts(random, service, random.int(4, 9));
  const incident: Incident = {
    service,
    host: random.pick(instances),
    release: release(random),
    code: `E${random.digits(4)}`,
    since: clock(random).slice(0, 5),
  };
  writer.user(
    `The ${service} service has been failing since about ${incident.since} UTC. Find out why and open a ticket for the on-call team.`,
  );
  writer.act(
    `Opening the console page of ${service}.`,
    'http_get',
    { url: `https://console.internal/services/${service}`, headers: { accept: 'text/html' } },
    consolePage(writer, incident, instances),
  );
  writer.detour(0, 2);
  const cause = findCause(writer, incident);
  writer.detour(0, 2);
  const sample = `{"region": "${cause.region}", "id": "${cause.request}"}`;
  writer.act(
    `Reproducing with request ${cause.request}.`,
    'run_python',
    { code: `from services.${service}.validators import validate_${cause.thing}\nvalidate_${cause.thing}(${sample})` },
    pythonTraceback(
      [
        { file: '<stdin>', line: 2, functionName: '<module>', code: `validate_${cause.thing}(${sample})` },
        {
          file: `/srv/app/${cause.file}`,
          line: cause.line,
          functionName: `validate_${cause.thing}`,
          code: `limit = REGION_LIMITS[${cause.thing}["region"]]`,
        },
      ],
      `KeyError: '${cause.region}'`,
    ),
  );
  const key = `OPS-${random.digits(4)}`;
  const body = `Since ${incident.release} reached ${incident.host}, validate_${cause.thing} (${cause.file} line ${cause.line}) raises KeyError '${cause.region}': REGION_LIMITS has no entry for it. Error ${incident.code}, e.g. request ${cause.request}.`;
  writer.act(
    `Opening a ticket for the on-call team of ${service}.`,
    'create_ticket',
    {
      team: `oncall-${service}`,
      severity: 'high',
      title: `${service}: KeyError '${cause.region}' in validate_${cause.thing} since ${incident.release}`,
      body,
    },
    prettyJson({
      ticket: {
        key,
        url: `https://tickets.internal/browse/${key}`,
        assignee: `usr_${random.code(8).toLowerCase()}`,
        status: 'open',
      },
    }),
  );
  writer.say(`Opened ${key}: ${body}`);
  memory.ticket = { key, service };
}
