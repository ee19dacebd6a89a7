/**
 * A customer charged twice for one order. The task needs the account id (to list orders), the duplicate order and
 * the one it repeats, the duplicate's second charge, the amounts, and the customer's e-mail address at the end.
 */
import { prettyJson, pythonTraceback, sqlTable } from './outputs.js';
import type { Random } from './random.js';
import { type Customer, clock, customer, day, type Order, order } from './world.js';
import type { RunWriter } from './writer.js';

/** What later tasks of a run may refer back to. */
export interface RunMemory {
  refunded?: { customer: Customer; refundId: string; orderId: string };
  ticket?: { key: string; service: string };
}

/** The account record a lookup returns: profile, payment methods, preferences and the latest orders. */
function accountRecord(random: Random, person: Customer, orders: readonly Order[]): string {
  return prettyJson({
    matches: 1,
    customer: {
      ...person,
      status: 'active',
      tags: ['priority', random.pick(['newsletter', 'beta', 'annual'])],
      billing_address: { street: `${random.int(1, 200)} Rue des Lilas`, city: person.city, postcode: person.postcode },
      payment_methods: [
        {
          id: `pm_${random.code(10)}`,
          brand: 'visa',
          last4: random.digits(4),
          expires: `0${random.int(1, 9)}/2${random.int(6, 9)}`,
        },
        { id: `pm_${random.code(10)}`, brand: 'sepa_debit', last4: random.digits(4) },
      ],
      preferences: { language: 'en', invoices_by_email: true, marketing: random.chance(0.5) },
    },
    recent_orders: orders.slice(0, 6).map((each) => ({ id: each.id, amount: each.amount, status: each.status })),
  });
}

/** Looks the customer up and lists their orders; returns the duplicate and the order it repeats. */
function findDuplicate(writer: RunWriter, person: Customer): { first: Order; duplicate: Order } {
  const { random } = writer;
  const orders = Array.from({ length: random.int(10, 25) }, () => order(random, person.id));
  const first = orders[0] as Order;
  const duplicate = { ...order(random, person.id), sku: first.sku, product: first.product, amount: first.amount };
  orders.splice(1, 0, duplicate);
  writer.act(
    `I'll find the account of ${person.name}.`,
    'lookup_customer',
    { query: person.name, include: ['profile', 'orders'] },
    accountRecord(random, person, orders),
  );
  writer.detour(0, 2);
  const columns = ['order_id', 'customer_id', 'sku', 'product', 'amount', 'status', 'created_at'];
  const rows = orders.map((each) => [
    each.id,
    each.customerId,
    each.sku,
    each.product,
    each.amount,
    each.status,
    each.created,
  ]);
  writer.act(
    `The account is ${person.id} (${person.plan} plan). Listing its recent orders.`,
    'query_db',
    {
      sql: `SELECT order_id, customer_id, sku, product, amount, status, created_at FROM orders WHERE customer_id = '${person.id}' ORDER BY created_at DESC LIMIT 30`,
      database: 'shop',
    },
    sqlTable(columns, rows),
  );
  return { first, duplicate };
}

/** Reads the duplicate's charges and works out the refundable amount; returns the charge and the net amount. */
function chargeToRefund(writer: RunWriter, first: Order, duplicate: Order): { charge: string; net: string } {
  const { random } = writer;
  const charges = [`ch_${random.code(14)}`, `ch_${random.code(14)}`];
  const cents = Math.round(Number(first.amount) * 100);
  const payment = {
    order_id: duplicate.id,
    currency: 'EUR',
    charges: charges.map((id, index) => ({
      id,
      amount_cents: cents,
      status: 'succeeded',
      created: `${day(random)}T${clock(random)}Z`,
      attempt: index + 1,
      card: { brand: 'visa', fingerprint: random.code(16).toLowerCase() },
    })),
    risk: { score: random.int(1, 40), checked_by: 'rules-v3', review: null },
  };
  writer.act(
    `${duplicate.id} repeats ${first.id} (${first.sku}, ${first.amount}). Checking its charges.`,
    'http_get',
    { url: `https://payments.internal/v2/orders/${duplicate.id}/charges`, headers: { accept: 'application/json' } },
    prettyJson(payment),
  );
  writer.detour(1, 3);
  const charge = charges[1] as string;
  const call = `print(refundable("${charge}", amount_cents=${cents}))`;
  writer.act(
    `The second charge ${charge} is the duplicate. Working out the refundable amount.`,
    'run_python',
    { code: `from billing.refunds import refundable\n${call}` },
    pythonTraceback(
      [
        { file: '/srv/app/scripts/console.py', line: 2, functionName: '<module>', code: call },
        {
          file: '/srv/app/billing/refunds.py',
          line: random.int(40, 300),
          functionName: 'refundable',
          code: 'fee = FEES[charge.currency_legacy]',
        },
      ],
      "AttributeError: 'Charge' object has no attribute 'currency_legacy'",
    ),
  );
  const fee = Math.round(cents * 0.029 + 25);
  const net = ((cents - fee) / 100).toFixed(2);
  writer.act(
    'The helper is broken for this charge; computing it by hand.',
    'run_python',
    {
      code: `cents = ${cents}\nfee = round(cents * 0.029 + 25)\nprint(f"refundable={cents / 100:.2f} fee_kept={fee / 100:.2f} net={(cents - fee) / 100:.2f}")`,
    },
    `refundable=${first.amount} fee_kept=${(fee / 100).toFixed(2)} net=${net}\n`,
  );
  return { charge, net };
}

/** Refunds the duplicate charge of a customer charged twice and tells them; remembers the refund for a follow-up. */
export function refundTask(writer: RunWriter, memory: RunMemory): void {
  const { random } = writer;
  const person = customer(random);
  writer.user(
    `Hi, ${person.name} from ${person.city} wrote in: they were charged twice for their last order. Please refund the duplicate charge and let them know.`,
  );
  const { first, duplicate } = findDuplicate(writer, person);
  writer.detour(0, 1);
  const { charge, net } = chargeToRefund(writer, first, duplicate);
  writer.detour(0, 2);
  const refundId = `re_${random.code(12)}`;
  writer.act(
    `Refunding ${net} EUR on ${charge}.`,
    'issue_refund',
    { charge_id: charge, amount: net, currency: 'EUR', reason: `duplicate of order ${first.id}` },
    prettyJson({
      refund: { id: refundId, charge, amount: net, currency: 'EUR', status: 'pending', eta_business_days: 5 },
    }),
  );
  writer.act(
    `Telling ${person.name} at ${person.email}.`,
    'send_email',
    {
      to: person.email,
      subject: `Refund for order ${duplicate.id}`,
      body: `Hello ${person.name},\n\nwe refunded ${net} EUR for the duplicate charge on order ${duplicate.id} (refund ${refundId}). It reaches your account within 5 business days.\n\nKind regards,\nSupport`,
    },
    `Queued message <${random.digits(10)}.${random.code(6).toLowerCase()}@mail.example.org> to ${person.email}.`,
  );
  writer.say(
    `Done: refund ${refundId} of ${net} EUR on charge ${charge} of order ${duplicate.id} (a duplicate of ${first.id}); ${person.name} (${person.id}) was told at ${person.email}.`,
  );
  memory.refunded = { customer: person, refundId, orderId: duplicate.id };
}
