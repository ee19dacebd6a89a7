import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A tiny BERT-shaped feature-extraction model written to disk the way a model hub lays one out (`config.json`,
 * `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`), so the real `@huggingface/transformers` pipeline
 * loads and runs it offline. The network is one embedding lookup (`Gather`): each word of a group of synonyms gets the
 * same one-hot vector, every other known word a vector of its own, unknown words one shared vector. Mean pooling then
 * makes texts that share meaning (by the groups) similar even when they share no word.
 */
export function writeTinyEmbeddingModel(
  root: string,
  { name = 'tiny-minilm', groups, words = [] }: { name?: string; groups: string[][]; words?: string[] },
): { root: string; model: string } {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = new Map<string, number>();
  for (const token of specials) vocab.set(token, vocab.size);
  const others = [...new Set(words.map((word) => word.toLowerCase()))];
  for (const word of [...groups.flat().map((word) => word.toLowerCase()), ...others]) {
    if (!vocab.has(word)) vocab.set(word, vocab.size);
  }
  // dimensions: one per group, one per other word, one for unknown words
  const dims = groups.length + others.length + 1;
  const table = new Float32Array(vocab.size * dims);
  const row = (token: string) => (vocab.get(token) as number) * dims;
  groups.forEach((group, g) => {
    for (const word of group) table[row(word.toLowerCase()) + g] = 1;
  });
  others.forEach((word, k) => {
    if (!groups.some((group) => group.some((member) => member.toLowerCase() === word))) {
      table[row(word) + groups.length + k] = 1;
    }
  });
  table[row('[UNK]') + dims - 1] = 1;

  const dir = join(root, name);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dims,
      vocab_size: vocab.size,
      max_position_embeddings: 512,
    }),
  );
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnxModel(table, vocab.size, dims));
  return { root, model: name };
}

function tokenizerJson(vocab: Map<string, number>) {
  const special = (content: string) => ({
    id: vocab.get(content),
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab.get('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab.get('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab),
    },
  };
}

// ---- a minimal protobuf writer, enough for an ONNX ModelProto ----

type Field = Uint8Array;

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return bytes;
}

function key(field: number, wire: number): number[] {
  return varint(field * 8 + wire);
}

const int = (field: number, value: number): Field => Uint8Array.from([...key(field, 0), ...varint(value)]);

function bytes(field: number, value: Uint8Array): Field {
  const head = [...key(field, 2), ...varint(value.length)];
  const out = new Uint8Array(head.length + value.length);
  out.set(head);
  out.set(value, head.length);
  return out;
}

const text = (field: number, value: string): Field => bytes(field, new TextEncoder().encode(value));
const message = (field: number, ...fields: Field[]): Field => bytes(field, concat(fields));

function concat(parts: Field[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const FLOAT = 1;
const INT64 = 7;

/** ValueInfoProto of a tensor: element type and named or fixed dimensions. */
function tensorInfo(field: number, name: string, elemType: number, shape: (string | number)[]): Field {
  const dims = shape.map((dim) => message(1, typeof dim === 'number' ? int(1, dim) : text(2, dim)));
  return message(field, text(1, name), message(2, message(1, int(1, elemType), message(2, ...dims))));
}

/** `last_hidden_state = Gather(embeddings, input_ids)`; `attention_mask` is taken (pipelines send it) and unused. */
function onnxModel(table: Float32Array, vocabSize: number, dims: number): Uint8Array {
  const initializer = message(
    5,
    int(1, vocabSize),
    int(1, dims),
    int(2, FLOAT),
    text(8, 'embeddings'),
    bytes(9, new Uint8Array(table.buffer, table.byteOffset, table.byteLength)),
  );
  const gather = message(
    1,
    text(1, 'embeddings'),
    text(1, 'input_ids'),
    text(2, 'last_hidden_state'),
    text(3, 'lookup'),
    text(4, 'Gather'),
    message(5, text(1, 'axis'), int(3, 0), int(20, 2)),
  );
  const graph = message(
    7,
    gather,
    text(2, 'tiny'),
    initializer,
    tensorInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    tensorInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    tensorInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', dims]),
  );
  return concat([int(1, 8), text(2, 'context-compression tests'), graph, message(8, text(1, ''), int(2, 17))]);
}
