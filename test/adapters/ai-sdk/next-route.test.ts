import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { POST } from '../../../examples/next-app/app/api/chat/route.js';

function uiMessages(count: number): UIMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `m${index}`,
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    parts: [
      {
        type: 'text' as const,
        text: `Message ${index} about shipment SHP-${index}. ${'Long details of the shipment. '.repeat(400)}`,
      },
    ],
  }));
}

async function post(messages: UIMessage[]) {
  const response = await POST(
    new Request('http://localhost/api/chat', { method: 'POST', body: JSON.stringify({ messages, userId: 'user-1' }) }),
  );
  return { status: response.status, body: await response.text() };
}

describe.skipIf(Boolean(process.env.OPENAI_API_KEY))('the Next.js route handler example', () => {
  it('streams an answer for a useChat request and compresses a long conversation', async () => {
    const messages = uiMessages(61);
    const fullCharacters = JSON.stringify(messages).length;
    const first = await post(messages);
    expect(first.status).toBe(200);
    const promptCharacters = Number(/the prompt had (\d+) characters/.exec(first.body)?.[1]);
    expect(promptCharacters).toBeGreaterThan(0);
    expect(promptCharacters).toBeLessThan(fullCharacters * 0.8);
    // useChat resends everything plus the new turn: the stored state is found again by content
    const second = await post([...messages, ...uiMessages(63).slice(61)]);
    expect(second.status).toBe(200);
    expect(second.body).toContain('mock answer');
  });
});
