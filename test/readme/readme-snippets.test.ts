/**
 * Every ```ts / ```typescript block of README.md and docs/*.md type-checks under `tsc --strict`, against this
 * repository's sources (no build needed), in one tsc run.
 *
 * How a snippet is made checkable, without weakening the check:
 * - Each block becomes its own file, verbatim: line k of the file is line k of the block, so an error names its
 *   document and line. The file is a module (an `export {}` is appended) compiled as ESNext for ES2022, so top-level
 *   `await` works as in the docs.
 * - Imports resolve as a user's would: installed packages from node_modules, and `context-compression`,
 *   `context-compression/ai-sdk`, ... to their source entry points (package.json `exports` -> the tsup entry that
 *   builds each file -> its source file, mapped with `paths`). A snippet importing an entry of `plannedEntries` that
 *   package.json does not export yet is skipped, printed with the reason; once the entry exists it is checked.
 * - Snippets import what they use from a library. The values a snippet takes from the reader's own code (`model`,
 *   `messages`, `tools`, `userId`, `store`, ...) are declared in `userValues` below with the types they have in the
 *   reader's code, per framework, and imported at the end of the file (imports are hoisted, so line numbers stay
 *   unchanged), only the names the snippet mentions and does not declare at its top level. A snippet is a LangChain
 *   one when it imports from LangChain (`langchain`, `@langchain/*`, `context-compression/langchain`) and not from
 *   the AI SDK; otherwise an AI SDK one (a snippet mixing both takes the AI SDK values first).
 * - Every package a snippet imports is installed (devDependencies), so its real types are checked; `stubs` below
 *   would stand in for one that cannot be (none does).
 * - A deliberately partial block is skipped only with the marker `<!-- snippet: not checked (reason) -->` on the
 *   line before its fence, visible in the markdown source; the test prints how many were checked and skipped.
 * - A canary file with a known type error runs in the same tsc program, so a setup that would check nothing (files
 *   left out, imports resolving to `any`) fails instead of passing.
 *
 * The files go to a fresh folder under node_modules/.cache (ignored by git, and module resolution finds the
 * repository's node_modules from there), removed afterwards; set `README_SNIPPETS_KEEP=1` to keep them (the folder is
 * printed). Compiler options: `strict`, `isolatedModules`, `skipLibCheck` (dependencies' .d.ts files only).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceEntryPoints } from '../helpers/package-entries.js';
import { type DocFile, docFiles, fencesOf, root } from './doc-files.js';

type Framework = 'ai-sdk' | 'langchain';

/** The reader's own values the docs' snippets use without defining them, with their types, per framework. */
const userValues: Record<Framework, { imports: string; values: Record<string, string> }> = {
  'ai-sdk': {
    imports: [
      "import type { LanguageModelV4 } from '@ai-sdk/provider';",
      "import type { ModelMessage, ToolSet } from 'ai';",
      "import type { StateStore } from 'context-compression';",
    ].join('\n'),
    values: {
      model: 'LanguageModelV4', // openai('gpt-4o') or the model withContextCompression returned
      messages: 'ModelMessage[]',
      instructions: 'string',
      tools: 'ToolSet',
      userId: 'string',
      store: 'StateStore', // the store of the Stores section
      waitUntil: '(work: Promise<unknown>) => void', // the platform's: @vercel/functions, Next.js after()
    },
  },
  langchain: {
    imports: [
      "import type { BaseChatModel } from '@langchain/core/language_models/chat_models';",
      "import type { BaseMessage } from '@langchain/core/messages';",
      "import type { DynamicStructuredTool } from '@langchain/core/tools';",
    ].join('\n'),
    values: {
      model: 'BaseChatModel',
      chatModel: 'BaseChatModel',
      messages: 'BaseMessage[]',
      history: 'BaseMessage[]',
      instructions: 'string',
      systemPrompt: 'string',
      tools: 'DynamicStructuredTool[]', // tools made with tool() of langchain
      userId: 'string',
    },
  },
};

/**
 * Type stubs of packages the docs import that are not installed in this repository: none now (every package a
 * snippet imports is a devDependency, so its real types are checked). A stub would be a subclass of the real base.
 */
const stubs: Record<string, string> = {};

/** Must fail to type-check: proves the snippets' program reports errors in files like theirs. */
const canary = {
  file: 'canary.ts',
  source: [
    "import { withContextCompression } from 'context-compression/ai-sdk';",
    "import { openai } from '@ai-sdk/openai';",
    "withContextCompression(openai('gpt-4o'), { compressAt: 'soon' });",
    'export {};',
  ].join('\n'),
};

/**
 * Entries of the package's public API that snippets may import before package.json exports them: such a snippet is
 * skipped with the reason printed until the entry exists, and checked from then on.
 */
const plannedEntries = ['context-compression/advanced'];

const SKIP_MARKER = /^<!--\s*snippet:\s*not checked\s*\((.+)\)\s*-->$/;

interface Snippet {
  /** The document, e.g. `docs/ai-sdk.md`. */
  doc: string;
  /** Line of the opening fence; the snippet's line k is the document's line `line + k`. */
  line: number;
  code: string;
  skipReason?: string;
  file: string;
}

/** `docs/ai-sdk.md:12`: where a snippet (or one of its lines) is. */
const at = (snippet: Snippet, offset = 0) => `${snippet.doc}:${snippet.line + offset}`;

/** The ```ts and ```typescript blocks of a document, with their skip markers, and markers before no such block. */
function extractSnippets(doc: DocFile): { snippets: Snippet[]; strayMarkers: string[] } {
  const snippets: Snippet[] = [];
  const isTypeScript = (language: string) => language === 'ts' || language === 'typescript';
  const fences = fencesOf(doc);
  const typeScriptStarts = new Set(fences.filter((fence) => isTypeScript(fence.language)).map((fence) => fence.start));
  const strayMarkers = doc.lines.flatMap((text, index) =>
    SKIP_MARKER.test(text.trim()) && !typeScriptStarts.has(index + 1) ? [`${doc.path}:${index + 1}`] : [],
  );
  const slug = doc.path
    .replace(/\.md$/, '')
    .replace(/[^\w]+/g, '-')
    .toLowerCase();
  for (const fence of fences) {
    if (!isTypeScript(fence.language)) continue;
    const marker = SKIP_MARKER.exec((doc.lines[fence.start - 1] ?? '').trim());
    snippets.push({
      doc: doc.path,
      line: fence.start + 1,
      code: doc.lines.slice(fence.start + 1, fence.end).join('\n'),
      file: `${slug}-${String(fence.start + 1).padStart(4, '0')}.ts`,
      ...(marker ? { skipReason: marker[1] } : {}),
    });
  }
  return { snippets, strayMarkers };
}

/** Top-level names a snippet declares, and every identifier it mentions. */
function namesOf(code: string): { declared: Set<string>; mentioned: Set<string>; imports: string[] } {
  const source = ts.createSourceFile('snippet.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const declared = new Set<string>();
  const imports: string[] = [];
  const bind = (name: ts.BindingName) => {
    if (ts.isIdentifier(name)) declared.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      if (ts.isStringLiteral(statement.moduleSpecifier)) imports.push(statement.moduleSpecifier.text);
      const clause = statement.importClause;
      if (clause?.name) declared.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) declared.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) declared.add(element.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) &&
      statement.name !== undefined
    ) {
      declared.add(statement.name.text);
    }
  }
  const mentioned = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) mentioned.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { declared, mentioned, imports };
}

const isLangChain = (specifier: string) =>
  specifier === 'langchain' ||
  specifier.startsWith('langchain/') ||
  specifier.startsWith('@langchain/') ||
  specifier === 'context-compression/langchain';
const isAiSdk = (specifier: string) =>
  specifier === 'ai' || specifier.startsWith('@ai-sdk/') || specifier === 'context-compression/ai-sdk';

/** The snippet's file: the block verbatim, then the import of the reader's values it uses, then `export {}`. */
function fileFor(snippet: Snippet): string {
  const { declared, mentioned, imports } = namesOf(snippet.code);
  const primary: Framework = imports.some(isLangChain) && !imports.some(isAiSdk) ? 'langchain' : 'ai-sdk';
  const other: Framework = primary === 'ai-sdk' ? 'langchain' : 'ai-sdk';
  const byModule = new Map<Framework, string[]>();
  for (const name of [...mentioned].sort()) {
    if (declared.has(name)) continue;
    const framework = [primary, other].find((candidate) => name in userValues[candidate].values);
    if (framework) byModule.set(framework, [...(byModule.get(framework) ?? []), name]);
  }
  const footer = [...byModule].map(
    ([framework, names]) => `import { ${names.join(', ')} } from './user-values/${framework}.js';`,
  );
  return `${snippet.code}\n// ---- generated by test/readme/readme-snippets.test.ts ----\n${[...footer, 'export {};'].join('\n')}\n`;
}

interface Diagnostic {
  file: string;
  line: number;
  text: string;
}

/** Parses `tsc --pretty false` output: `file(line,col): error TS...: message` and its indented continuation lines. */
function parseDiagnostics(output: string, dir: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const text of output.split('\n')) {
    const match = /^(.+?)\((\d+),(\d+)\): (error .*)$/.exec(text);
    if (match) {
      const [, file = '', line = '0', , message = ''] = match;
      diagnostics.push({ file: relative(dir, resolve(dir, file)), line: Number(line), text: message });
    } else if (text.trim() !== '') {
      const last = diagnostics.at(-1);
      if (last && /^\s/.test(text)) last.text += `\n${text}`;
      else diagnostics.push({ file: '', line: 0, text });
    }
  }
  return diagnostics;
}

const docs = docFiles();
const extracted = docs.map(extractSnippets);
const entryPoints = sourceEntryPoints();
/** A planned entry the snippet imports that package.json does not export yet, if any. */
const missingEntry = (snippet: Snippet) =>
  namesOf(snippet.code).imports.find((specifier) => plannedEntries.includes(specifier) && !(specifier in entryPoints));
const snippets = extracted
  .flatMap((result) => result.snippets)
  .map((snippet) => {
    const entry = snippet.skipReason === undefined ? missingEntry(snippet) : undefined;
    return entry === undefined ? snippet : { ...snippet, skipReason: `imports ${entry}, not exported yet` };
  });
const strayMarkers = extracted.flatMap((result) => result.strayMarkers);
const checked = snippets.filter((snippet) => snippet.skipReason === undefined);
const skipped = snippets.filter((snippet) => snippet.skipReason !== undefined);

let dir = '';
let diagnostics: Diagnostic[] = [];
let tscMs = 0;

beforeAll(() => {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'doc-snippets-'));
  mkdirSync(join(dir, 'user-values'));
  mkdirSync(join(dir, 'stubs'));
  for (const [framework, { imports, values }] of Object.entries(userValues)) {
    const declarations = Object.entries(values).map(([name, type]) => `export declare const ${name}: ${type};`);
    writeFileSync(join(dir, 'user-values', `${framework}.ts`), `${imports}\n\n${declarations.join('\n')}\n`);
  }
  const paths: Record<string, string[]> = {};
  for (const [specifier, file] of Object.entries(entryPoints)) paths[specifier] = [file];
  for (const [specifier, text] of Object.entries(stubs)) {
    const file = join(dir, 'stubs', `${specifier.replace(/^@/, '').replace(/\//g, '__')}.d.ts`);
    writeFileSync(file, text);
    paths[specifier] = [file];
  }
  for (const snippet of checked) writeFileSync(join(dir, snippet.file), fileFor(snippet));
  writeFileSync(join(dir, canary.file), canary.source);
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      lib: ['ES2023', 'DOM'],
      module: 'ESNext',
      moduleResolution: 'Bundler',
      esModuleInterop: true,
      isolatedModules: true,
      skipLibCheck: true,
      types: ['node'],
      paths,
    },
    files: [...checked.map((snippet) => snippet.file), canary.file],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const started = performance.now();
  const tsc = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'],
    { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  tscMs = performance.now() - started;
  if (tsc.error) throw tsc.error;
  // 1 or 2: diagnostics reported (the canary always has one); anything else is tsc failing to run
  if (tsc.status !== 1 && tsc.status !== 2)
    throw new Error(`tsc exited with ${tsc.status}:\n${tsc.stdout}${tsc.stderr}`);
  diagnostics = parseDiagnostics(`${tsc.stdout}${tsc.stderr}`, dir);
  console.log(
    `Doc snippets (${docs.length} files): ${checked.length} checked, ${skipped.length} skipped` +
      skipped.map((snippet) => `\n  skipped ${at(snippet)}: ${snippet.skipReason}`).join('') +
      `\n  tsc --strict on all of them: ${(tscMs / 1000).toFixed(1)} s` +
      (process.env.README_SNIPPETS_KEEP ? `\n  files kept in ${dir}` : ''),
  );
});

afterAll(() => {
  if (dir && !process.env.README_SNIPPETS_KEEP) rmSync(dir, { recursive: true, force: true });
});

/** The errors of one generated file, each with the document line it points at. */
function errorsIn(snippet: Snippet): string[] {
  const lastLine = snippet.code.split('\n').length;
  return diagnostics
    .filter((diagnostic) => diagnostic.file === snippet.file)
    .map((diagnostic) =>
      diagnostic.line <= lastLine
        ? `${at(snippet, diagnostic.line)}: ${diagnostic.text}`
        : `${at(snippet)} (the generated import of the reader's values): ${diagnostic.text}`,
    );
}

describe('README.md and docs/*.md code', () => {
  it('has TypeScript snippets, and every skip marker sits right before one', () => {
    expect(checked.length).toBeGreaterThan(0);
    expect(strayMarkers.map((where) => `${where}: marker not followed by a \`\`\`ts block`)).toEqual([]);
  });

  it('the check reports errors: the canary fails to type-check', () => {
    const canaryErrors = diagnostics.filter((diagnostic) => diagnostic.file === canary.file);
    expect(canaryErrors.map((diagnostic) => diagnostic.line)).toEqual([3]);
    // `compressAt: 'soon'`: the options are typed from the source, not `any`
    expect(canaryErrors[0]?.text).toMatch(/^error TS2322: Type 'string' is not assignable to type 'number'/);
  });

  it('the sources, stubs and declarations the snippets use type-check in their configuration', () => {
    const own = new Set([...snippets.map((snippet) => snippet.file), canary.file]);
    const others = diagnostics.filter((diagnostic) => !own.has(diagnostic.file));
    expect(others.map((diagnostic) => `${diagnostic.file}:${diagnostic.line}: ${diagnostic.text}`)).toEqual([]);
  });

  it.each(checked.map((snippet) => [at(snippet), snippet] as const))(
    'the snippet at %s type-checks under tsc --strict',
    (where, snippet) => {
      const errors = errorsIn(snippet);
      expect(errors, `${where}:\n${errors.join('\n')}`).toEqual([]);
    },
  );

  it.skip.each(skipped.map((snippet) => [at(snippet), snippet.skipReason] as const))(
    'the snippet at %s is not checked (%s)',
    () => {},
  );
});
