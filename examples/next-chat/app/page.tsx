'use client';

import { useChat } from '@ai-sdk/react';
import type { CompressionReport } from 'context-compression/ai-sdk';
import { type FormEvent, useState } from 'react';

/** What one request sent and changed: the model call's report, from its provider metadata. */
function CompressionPanel({ compression }: { compression: CompressionReport | undefined }) {
  if (!compression) return null;
  const { change } = compression;
  const changes = change
    ? [
        change.messagesFolded > 0 && `folded ${change.messagesFolded} messages into the session state`,
        change.toolResultsMasked.count > 0 && `masked ${change.toolResultsMasked.count} tool results`,
        change.recalled.chunks > 0 && `recalled ${change.recalled.chunks} pieces`,
      ].filter(Boolean)
    : [];
  return (
    <div data-testid="compression" style={panel}>
      sent {compression.promptTokens.toLocaleString()} tokens for a history of{' '}
      {compression.historyTokens.toLocaleString()}
      {compression.stateInPrompt
        ? `; ${compression.messagesOutOfPrompt} messages in the session state`
        : '; the whole history'}
      {change && changes.length > 0 ? `; this request ${change.trigger}: ${changes.join(', ')}` : '; nothing changed'}
      {`; cache-stable prefix ${compression.cacheablePrefixTokens.toLocaleString()} tokens`}
    </div>
  );
}

const panel = { fontSize: 12, color: '#555', background: '#eef3ff', padding: '4px 8px', marginTop: 4, borderRadius: 4 };

export default function Page() {
  const { messages, sendMessage, status, error } = useChat();
  const [input, setInput] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!input.trim()) return;
    void sendMessage({ text: input });
    setInput('');
  };
  return (
    <main style={{ maxWidth: 760, margin: '0 auto', padding: 24 }}>
      <h1 style={{ fontSize: 20 }}>Chat with context compression</h1>
      {messages.map((message) => (
        <div key={message.id} data-testid="message" data-role={message.role} style={{ margin: '12px 0' }}>
          <div style={{ fontWeight: 600 }}>{message.role === 'user' ? 'You' : 'Assistant'}</div>
          <div>
            {message.parts
              .filter((part) => part.type === 'text')
              .map((part) => part.text)
              .join('')}
          </div>
          {message.role === 'assistant' ? (
            <CompressionPanel
              compression={(message.metadata as { compression?: CompressionReport } | undefined)?.compression}
            />
          ) : null}
        </div>
      ))}
      {error ? <div data-testid="error">{error.message}</div> : null}
      <form onSubmit={submit} style={{ display: 'flex', gap: 8, marginTop: 16 }}>
        <input
          data-testid="input"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          placeholder="Ask about a deploy..."
          style={{ flex: 1, padding: 8 }}
        />
        <button type="submit" data-testid="send" disabled={status !== 'ready'}>
          Send
        </button>
      </form>
    </main>
  );
}
