/**
 * Writes docs/options.md from the options schemas: each option's path, allowed values, default and the first sentence
 * of its JSDoc (read from the schema's source, where the same comment gives editors their hover docs). Run with
 * `npm run docs:options`; a test fails when the file is not what this script writes.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { z } from 'zod';
import { AdapterOptionsSchema } from '../src/options/adapter-options.js';
import { CALL_OPTIONS_KEY, CallOptionsSchema } from '../src/options/call-options.js';
import { CompressionOptionsSchema } from '../src/options/compression-options.js';
import { ExtractiveSummarizerOptionsSchema } from '../src/options/extractive-summarizer-options.js';
import { allowedOf } from '../src/options/option-fields.js';
import {
  LangChainToolOptionsSchema,
  MemoryStoreOptionsSchema,
  OpenAIAgentsToolOptionsSchema,
  RedactionToolOptionsSchema,
  RetrievalToolOptionsSchema,
} from '../src/options/tool-options.js';

const OPTIONS_DIRECTORY = fileURLToPath(new URL('../src/options/', import.meta.url));
export const REFERENCE_PATH = fileURLToPath(new URL('../docs/options.md', import.meta.url));

/** An option as the reference lists it. */
export interface OptionRow {
  readonly path: string;
  readonly allowed: string;
  /** The schema's default, when it has one that reads well in a table. */
  readonly value: unknown;
  /** The `@default` of the JSDoc. */
  readonly documentedDefault: string | undefined;
  /** Must be given (with its parent). */
  readonly required: boolean;
  readonly description: string;
}

/** The JSDoc of a shape's keys, and of its nested shapes' keys by dotted path. */
type KeyDocs = Map<string, { text: string; defaultText: string | undefined }>;

/** The initializer of every top-level `const` of the options sources, by name: schemas and their shapes. */
function declarations(): Map<string, ts.Expression> {
  const found = new Map<string, ts.Expression>();
  for (const file of readdirSync(OPTIONS_DIRECTORY).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(OPTIONS_DIRECTORY + file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer) {
          found.set(declaration.name.text, declaration.initializer);
        }
      }
    }
  }
  return found;
}

/**
 * The shape (object literal) a schema expression is built from: a `const` named in it, or the argument of its
 * `group(...)` / `z.strictObject(...)`. Object literals given as values (`.prefault({})`, `.default({...})`) are no shape.
 */
function shapeIn(node: ts.Node, consts: Map<string, ts.Expression>): ts.ObjectLiteralExpression | undefined {
  if (ts.isIdentifier(node)) {
    const initializer = consts.get(node.text);
    if (!initializer) return undefined;
    return ts.isObjectLiteralExpression(initializer) ? initializer : shapeIn(initializer, consts);
  }
  if (ts.isCallExpression(node)) {
    const callee = node.expression;
    const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
    const [first] = node.arguments;
    if ((name === 'group' || name === 'strictObject') && first) {
      return ts.isObjectLiteralExpression(first) ? first : shapeIn(first, consts);
    }
  }
  let found: ts.ObjectLiteralExpression | undefined;
  ts.forEachChild(node, (child) => {
    // a method's name (`.default`) is no const, and a function's body builds no shape
    const skipped =
      ts.isObjectLiteralExpression(child) ||
      ts.isArrowFunction(child) ||
      (ts.isPropertyAccessExpression(node) && child === node.name);
    if (!skipped) found ??= shapeIn(child, consts);
  });
  return found;
}

/** The keys' JSDoc of a shape, and of the shapes nested in each key's schema, by dotted path. */
function keyDocs(shape: ts.ObjectLiteralExpression, consts: Map<string, ts.Expression>): KeyDocs {
  const docs: KeyDocs = new Map();
  for (const property of shape.properties) {
    if (ts.isSpreadAssignment(property)) {
      const spread = shapeIn(property.expression, consts);
      if (spread) for (const [path, doc] of keyDocs(spread, consts)) docs.set(path, doc);
      continue;
    }
    if (!ts.isPropertyAssignment(property) || !ts.isIdentifier(property.name)) continue;
    const key = property.name.text;
    const jsDoc = ts.getJSDocCommentsAndTags(property).find(ts.isJSDoc);
    const tag = jsDoc?.tags?.find((candidate) => candidate.tagName.text === 'default');
    docs.set(key, {
      text: oneLine(ts.getTextOfJSDocComment(jsDoc?.comment) ?? ''),
      defaultText: tag ? oneLine(ts.getTextOfJSDocComment(tag.comment) ?? '') : undefined,
    });
    const nested = shapeIn(property.initializer, consts);
    if (nested) for (const [path, doc] of keyDocs(nested, consts)) docs.set(`${key}.${path}`, doc);
  }
  return docs;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The first sentence: up to the first full stop that ends one (not the one of "e.g." or "i.e."). */
function firstSentence(text: string): string {
  const end = /(?<!\be\.g|\bi\.e)\.(?=\s|$)/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

/** The schema inside defaults, optionals and readonly, with the first allowed-values text met on the way. */
function unwrap(schema: z.ZodType): { core: z.ZodType; allowed: string | undefined } {
  let core = schema;
  let allowed = allowedOf(core);
  while (
    core instanceof z.ZodDefault ||
    core instanceof z.ZodPrefault ||
    core instanceof z.ZodOptional ||
    core instanceof z.ZodReadonly
  ) {
    core = core.unwrap() as z.ZodType;
    allowed ??= allowedOf(core);
  }
  return { core, allowed };
}

/** The nested object of a group, or of a feature that `false` turns off. */
function nestedObject(core: z.ZodType): z.ZodObject | undefined {
  if (core instanceof z.ZodObject) return core;
  if (core instanceof z.ZodUnion) return (core.options as z.ZodType[]).find((option) => option instanceof z.ZodObject);
  return undefined;
}

/** The rows of an object schema, each key followed by its nested keys. */
function rowsOf(object: z.ZodObject, docs: KeyDocs, prefix = ''): OptionRow[] {
  return Object.entries(object.shape).flatMap(([key, field]) => {
    const path = `${prefix}${key}`;
    const doc = docs.get(path);
    if (!doc?.text) throw new Error(`option \`${path}\` has no JSDoc: describe it where the schema declares it`);
    const { core, allowed } = unwrap(field as z.ZodType);
    if (!allowed)
      throw new Error(`option \`${path}\` says nothing of its allowed values: build it in option-fields.ts`);
    const nested = nestedObject(core);
    const parsed = (field as z.ZodType).safeParse(undefined);
    const row: OptionRow = {
      path,
      allowed,
      value: parsed.success && !nested ? parsed.data : undefined,
      documentedDefault: doc.defaultText,
      required: !parsed.success,
      description: firstSentence(doc.text),
    };
    return [row, ...(nested ? rowsOf(nested, docs, `${path}.`) : [])];
  });
}

/** The engine's options, the adapters' own, the per-call options and the extractive summarizer's, as listed. */
export function optionRows(): {
  engine: OptionRow[];
  adapter: OptionRow[];
  call: OptionRow[];
  extractive: OptionRow[];
  tools: Record<string, OptionRow[]>;
} {
  const consts = declarations();
  const docsOf = (name: string) => {
    const initializer = consts.get(name);
    const shape = initializer && shapeIn(initializer, consts);
    if (!shape) throw new Error(`no \`const ${name}\` built from a shape in src/options`);
    return keyDocs(shape, consts);
  };
  return {
    engine: rowsOf(CompressionOptionsSchema, docsOf('CompressionOptionsSchema')),
    adapter: rowsOf(AdapterOptionsSchema, docsOf('AdapterOptionsSchema')),
    call: rowsOf(CallOptionsSchema, docsOf('CallOptionsSchema')),
    extractive: rowsOf(ExtractiveSummarizerOptionsSchema, docsOf('ExtractiveSummarizerOptionsSchema')),
    tools: {
      'retrievalTool(options)': rowsOf(RetrievalToolOptionsSchema, docsOf('RetrievalToolOptionsSchema')),
      'redactionTool(options)': rowsOf(RedactionToolOptionsSchema, docsOf('RedactionToolOptionsSchema')),
      'LangChain tools, besides the above': rowsOf(LangChainToolOptionsSchema, docsOf('LangChainToolOptionsSchema')),
      'openaiAgentsTool(tool, options)': rowsOf(OpenAIAgentsToolOptionsSchema, docsOf('OpenAIAgentsToolOptionsSchema')),
      'memoryStateStore(options)': rowsOf(MemoryStoreOptionsSchema, docsOf('MemoryStoreOptionsSchema')),
    },
  };
}

/**
 * A default as the table shows it: the schema's value when it is short and plain (with what the JSDoc adds after it,
 * e.g. "(7 days)"), else the words of the JSDoc; `required` for a key that must be given with its parent.
 */
export function shownDefault(row: OptionRow): string {
  const { value, documentedDefault } = row;
  const plain =
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    (typeof value === 'string' && value.length <= 40 && !value.includes('\n')) ||
    (Array.isArray(value) && value.length === 0);
  if (plain) {
    const written = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
    const more = documentedDefault?.startsWith(written) ? documentedDefault.slice(written.length) : '';
    return `\`${written}\`${more}`;
  }
  if (documentedDefault) return documentedDefault;
  return row.required ? 'required' : 'none';
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

function table(rows: readonly OptionRow[]): string {
  const lines = ['| Option | Allowed values | Default | Description |', '| --- | --- | --- | --- |'];
  for (const row of rows) {
    lines.push(`| \`${row.path}\` | ${cell(row.allowed)} | ${cell(shownDefault(row))} | ${cell(row.description)} |`);
  }
  return lines.join('\n');
}

/** The text of docs/options.md. */
export function optionsReference(): string {
  const { engine, adapter, call, extractive, tools } = optionRows();
  const toolTables = Object.entries(tools)
    .map(([name, rows]) => `### ${name}\n\n${table(rows)}`)
    .join('\n\n');
  return `<!-- Generated from the options schemas by \`npm run docs:options\`: edit the schemas' JSDoc, not this file. -->

# Options reference

## Engine options

The options of \`withContextCompression(model, options)\` and \`contextCompression(options)\` (AI SDK), and of
\`withContextCompression(model, options)\`, \`compressMessages(options)\` and \`contextCompressionMiddleware(options)\`
(LangChain). Every factory checks them when called: an unknown key or a value that is not allowed, at any depth, is an
\`InvalidOptionError\` naming the option's path, the value given and the values allowed. Nested options are listed under
their parent; \`false\` turns off a feature whose allowed values say so.

${table(engine)}

## Adapter options

Options one adapter or one function adds to the engine's, each where its description says.

${table(adapter)}

## Per-call options

Given with one call: in the AI SDK as \`providerOptions['${CALL_OPTIONS_KEY}']\`, in LangChain as
\`configurable['${CALL_OPTIONS_KEY}']\` of the call's config. They are checked on every call.

${table(call)}

## Extractive summarizer options

The options of \`extractiveSummarizer(options)\`, the offline summarizer used when no \`summarizer\` is given (with its
defaults). They are checked when it is made.

${table(extractive)}

## Tool and store options

The options of the tools this package gives the model and of the in-memory store, checked when each is made.

${toolTables}
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REFERENCE_PATH, optionsReference());
  console.log(`wrote ${REFERENCE_PATH}`);
}
