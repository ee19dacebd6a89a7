/**
 * The README shows the awareness block the model is told, and its size: both stay what the package sends.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { DEFAULT_AWARENESS_BLOCK, retrievalToolAwareness } from '../../src/options/prompts.js';
import { root } from './doc-files.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## What the model is told'), readme.indexOf('## Install'));

describe('the README on the awareness block', () => {
  it('shows the default block verbatim', () => {
    const shown = /```text\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(shown).toBe(DEFAULT_AWARENESS_BLOCK);
  });

  it('gives its size and the retrieval sentence’s as o200k counts them', () => {
    expect(section).toContain(`(${countTokens(DEFAULT_AWARENESS_BLOCK)} tokens with o200k;`);
    // the sentence goes after the block on a line of its own, with the tool's name
    const sentence = countTokens(`\n${retrievalToolAwareness('retrieve_context')}`);
    expect(section).toContain(`${sentence} more when the`);
  });
});
