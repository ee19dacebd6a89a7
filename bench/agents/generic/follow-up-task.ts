/**
 * A follow-up that refers back to earlier tasks of the run: the refunded customer's account id, the order and refund
 * ids, and the incident's ticket key, all from outputs many steps back.
 */
import type { RunMemory } from './refund-task.js';
import type { RunWriter } from './writer.js';

/** A follow-up on earlier tasks: a note of the refund (and the incident's ticket) on the refunded account. */
export function followUpTask(writer: RunWriter, memory: RunMemory): void {
  const refunded = memory.refunded;
  if (!refunded) return;
  const { random } = writer;
  const ticket = memory.ticket ? `, and link the ${memory.ticket.service} incident ticket` : '';
  writer.user(
    `One more thing: add a note about the refund to the account of the customer you refunded earlier${ticket}.`,
  );
  const note = `Duplicate charge on ${refunded.orderId} refunded (${refunded.refundId}).${memory.ticket ? ` Related incident: ${memory.ticket.key}.` : ''}`;
  writer.act(
    `Adding the note to ${refunded.customer.id}.`,
    'annotate_account',
    { customer_id: refunded.customer.id, note, visibility: 'internal' },
    JSON.stringify({ ok: true, note_id: `note_${random.digits(9)}`, customer_id: refunded.customer.id }),
  );
  writer.say(`Noted on ${refunded.customer.id}: ${note}`);
}
