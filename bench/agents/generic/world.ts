/**
 * The made-up company the generated agent works for: customers with orders and charges, services on hosts, and a
 * source tree. Every name, id and number is drawn from a seeded sequence; none comes from recorded data.
 */
import type { Random } from './random.js';

const FIRST = ['Maria', 'Jonas', 'Aiko', 'Tomas', 'Leila', 'Pavel', 'Grace', 'Omar', 'Ines', 'Victor', 'Nadia', 'Hugo'];
const LAST = ['Lindqvist', 'Okafor', 'Brandt', 'Moreau', 'Castillo', 'Novak', 'Haddad', 'Keller', 'Duarte', 'Sato'];
const CITIES = ['Lyon', 'Porto', 'Graz', 'Utrecht', 'Tampere', 'Bilbao', 'Gdansk', 'Aarhus'];
const PLANS = ['starter', 'team', 'business', 'enterprise'];
const PRODUCTS = ['backup-vault', 'edge-cache', 'log-stream', 'queue-plus', 'db-replica', 'cdn-basic'];
/** Services of the company, with the module folder of each. */
export const SERVICES = ['billing', 'checkout', 'inventory', 'notifications', 'search', 'accounts'] as const;
export const REGIONS = ['eu-west-1', 'eu-central-2', 'us-east-3', 'ap-south-1'];

/** A customer account. */
export interface Customer {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string;
  readonly plan: string;
  readonly city: string;
  readonly postcode: string;
  readonly since: string;
}

/** An order of a customer. */
export interface Order {
  readonly id: string;
  readonly customerId: string;
  readonly sku: string;
  readonly product: string;
  readonly amount: string;
  readonly status: string;
  readonly created: string;
}

/** A date of 2025 (of `year`) as `YYYY-MM-DD`. */
export function day(random: Random, month = random.int(1, 12), year = 2025): string {
  return `${year}-${String(month).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`;
}

/** A date of the year before, as side steps show for files and events that have nothing to do with the tasks. */
export const lastYear = (random: Random): string => day(random, random.int(1, 12), 2024);

/** A time of day as `HH:MM:SS`. */
export const clock = (random: Random): string =>
  [random.int(0, 23), random.int(0, 59), random.int(0, 59)].map((part) => String(part).padStart(2, '0')).join(':');

/** An amount of money with two decimals. */
export const money = (random: Random, min: number, max: number): string =>
  (random.int(min * 100, max * 100) / 100).toFixed(2);

/** A new customer. */
export function customer(random: Random): Customer {
  const first = random.pick(FIRST);
  const last = random.pick(LAST);
  return {
    id: `CU-${random.digits(6)}`,
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}${random.int(10, 99)}@example.org`,
    phone: `+33 6 ${random.digits(2)} ${random.digits(2)} ${random.digits(2)} ${random.digits(2)}`,
    plan: random.pick(PLANS),
    city: random.pick(CITIES),
    postcode: random.digits(5),
    since: day(random, random.int(1, 12)),
  };
}

/** A new order of `customerId`. */
export function order(random: Random, customerId: string, status = 'captured'): Order {
  return {
    id: `ORD-${random.digits(7)}`,
    customerId,
    sku: `SKU-${random.code(6)}`,
    product: random.pick(PRODUCTS),
    amount: money(random, 9, 480),
    status,
    created: `${day(random)} ${clock(random)}`,
  };
}

/** The host names of a service's `count` instances. */
export const hosts = (random: Random, service: string, count: number): string[] =>
  Array.from({ length: count }, (_unused, index) => `${service}-${index + 1}.${random.pick(REGIONS)}.internal`);

/** A release tag. */
export const release = (random: Random): string => `v${random.int(3, 9)}.${random.int(0, 40)}.${random.int(0, 20)}`;

/** A request id as the services log it. */
export const requestId = (random: Random): string => `req_${random.code(12).toLowerCase()}`;

/** A region name. */
export const region = (random: Random): string => random.pick(REGIONS);

/** A plan name. */
export const plan = (random: Random): string => random.pick(PLANS);

/** The names of the source files of a service's folder. */
export function moduleFiles(service: string): string[] {
  return [`${service}_api.py`, 'handlers.py', 'models.py', 'settings.py', `${service}_jobs.py`, 'validators.py'];
}
