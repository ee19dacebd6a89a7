/**
 * Every ```ts / ```typescript block of README.md type-checks under `tsc --strict`, against this repository's sources
 * (no build needed), in one tsc run.
 *
 * How a snippet is made checkable, without weakening the check:
 * - Each block becomes its own file, verbatim: line k of the file is line k of the block, so an error names its
 *   README line. The file is a module (an `export {}` is appended) compiled as ESNext for ES2022, so top-level
 *   `await` works as in the README.
 * - Imports resolve as a user's would: installed packages from node_modules, and `context-compression`,
 *   `context-compression/ai-sdk`, ... to their source entry points (package.json `exports` -> the tsup entry that
 *   builds each file -> its source file, mapped with `paths`).
 * - Snippets import what they use from a library. The values a snippet takes from the reader's own code (`model`,
 *   `messages`, `tools`, `userId`, `store`, ...) are declared in `userValues` below with the types they have in the
 *   reader's code, per framework, and imported at the end of the file (imports are hoisted, so line numbers stay
 *   unchanged), only the names the snippet mentions and does not declare at its top level. A snippet is a LangChain
 *   one when it imports from LangChain (`langchain`, `@langchain/*`, `context-compression/langchain`) and not from
 *   the AI SDK; otherwise an AI SDK one (a snippet mixing both takes the AI SDK values first).
 * - Every package a snippet imports is installed (devDependencies), so its real types are checked; `stubs` below
 *   would stand in for one that cannot be (none does).
 * - A deliberately partial block is skipped only with the marker `<!-- snippet: not checked (reason) -->` on the
 *   line before its fence, visible in the README source; the test prints how many were checked and skipped.
 * - A canary file with a known type error runs in the same tsc program, so a setup that would check nothing (files
 *   left out, imports resolving to `any`) fails instead of passing.
 *
 * The files go to a fresh folder under node_modules/.cache (ignored by git, and module resolution finds the
 * repository's node_modules from there), removed afterwards; set `README_SNIPPETS_KEEP=1` to keep them (the folder is
 * printed). Compiler options: `strict`, `isolatedModules`, `skipLibCheck` (dependencies' .d.ts files only).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const readmePath = join(root, 'README.md');

type Framework = 'ai-sdk' | 'langchain';

/** The reader's own values the README's snippets use without defining them, with their types, per framework. */
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
 * Type stubs of packages the README imports that are not installed in this repository: none now (every package a
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

const SKIP_MARKER = /^<!--\s*snippet:\s*not checked\s*\((.+)\)\s*-->$/;

interface Snippet {
  /** README line of the opening fence; the snippet's line k is README line `line + k`. */
  line: number;
  code: string;
  skipReason?: string;
  file: string;
}

/** The ```ts and ```typescript blocks of the README, with their skip markers. */
function extractSnippets(markdown: string): { snippets: Snippet[]; strayMarkers: number[] } {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  const strayMarkers: number[] = [];
  const fenceAt = (index: number) => /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index] ?? '');
  const isTypeScript = (language: string | undefined) => language === 'ts' || language === 'typescript';
  for (let index = 0; index < lines.length; index++) {
    const fence = fenceAt(index);
    if (!fence) {
      if (SKIP_MARKER.test((lines[index] ?? '').trim()) && !isTypeScript(fenceAt(index + 1)?.[2]))
        strayMarkers.push(index + 1);
      continue;
    }
    const [, ticks = '```', language] = fence;
    const end = lines.findIndex((text, at) => at > index && text.trim() === ticks);
    if (end === -1) throw new Error(`README.md:${index + 1}: code block never closed`);
    if (isTypeScript(language)) {
      const marker = SKIP_MARKER.exec((lines[index - 1] ?? '').trim());
      snippets.push({
        line: index + 1,
        code: lines.slice(index + 1, end).join('\n'),
        file: `readme-${String(index + 1).padStart(4, '0')}.ts`,
        ...(marker ? { skipReason: marker[1] } : {}),
      });
    }
    index = end;
  }
  return { snippets, strayMarkers };
}

/** The package's import specifiers mapped to the source files that build them (package.json exports, tsup entries). */
function sourceEntryPoints(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { import?: { default?: string } }>;
  };
  const tsup = readFileSync(join(root, 'tsup.config.ts'), 'utf8');
  const entryBlock = /entry:\s*\{([^}]*)\}/.exec(tsup)?.[1] ?? '';
  const entries = new Map(
    [...entryBlock.matchAll(/['"]?([\w/.-]+)['"]?\s*:\s*['"]([^'"]+)['"]/g)].map(([, name = '', file = '']) => [
      name,
      file,
    ]),
  );
  const paths: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const built = target.import?.default ?? '';
    const name = /^\.\/dist\/(.+)\.js$/.exec(built)?.[1];
    const source = name === undefined ? undefined : entries.get(name);
    if (source === undefined) throw new Error(`package.json export ${subpath} (${built}) has no tsup entry`);
    paths[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = join(root, source);
  }
  return paths;
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

const readme = readFileSync(readmePath, 'utf8');
const { snippets, strayMarkers } = extractSnippets(readme);
const checked = snippets.filter((snippet) => snippet.skipReason === undefined);
const skipped = snippets.filter((snippet) => snippet.skipReason !== undefined);

let dir = '';
let diagnostics: Diagnostic[] = [];
let tscMs = 0;

beforeAll(() => {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  dir = mkdtempSync(join(cache, 'readme-snippets-'));
  mkdirSync(join(dir, 'user-values'));
  mkdirSync(join(dir, 'stubs'));
  for (const [framework, { imports, values }] of Object.entries(userValues)) {
    const declarations = Object.entries(values).map(([name, type]) => `export declare const ${name}: ${type};`);
    writeFileSync(join(dir, 'user-values', `${framework}.ts`), `${imports}\n\n${declarations.join('\n')}\n`);
  }
  const paths: Record<string, string[]> = {};
  for (const [specifier, file] of Object.entries(sourceEntryPoints())) paths[specifier] = [file];
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
    `README snippets: ${checked.length} checked, ${skipped.length} skipped` +
      skipped.map((snippet) => `\n  skipped README.md:${snippet.line}: ${snippet.skipReason}`).join('') +
      `\n  tsc --strict on all of them: ${(tscMs / 1000).toFixed(1)} s` +
      (process.env.README_SNIPPETS_KEEP ? `\n  files kept in ${dir}` : ''),
  );
});

afterAll(() => {
  if (dir && !process.env.README_SNIPPETS_KEEP) rmSync(dir, { recursive: true, force: true });
});

/** The errors of one generated file, each with the README line it points at. */
function errorsIn(snippet: Snippet): string[] {
  const lastLine = snippet.code.split('\n').length;
  return diagnostics
    .filter((diagnostic) => diagnostic.file === snippet.file)
    .map((diagnostic) =>
      diagnostic.line <= lastLine
        ? `README.md:${snippet.line + diagnostic.line}: ${diagnostic.text}`
        : `README.md:${snippet.line} (the generated import of the reader's values): ${diagnostic.text}`,
    );
}

describe('README.md code', () => {
  it('has TypeScript snippets, and every skip marker sits right before one', () => {
    expect(checked.length).toBeGreaterThan(0);
    expect(strayMarkers.map((line) => `README.md:${line}: marker not followed by a \`\`\`ts block`)).toEqual([]);
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

  it.each(checked.map((snippet) => [snippet.line, snippet] as const))(
    'the snippet at README.md:%i type-checks under tsc --strict',
    (_line, snippet) => {
      const errors = errorsIn(snippet);
      expect(errors, `README.md:${snippet.line}:\n${errors.join('\n')}`).toEqual([]);
    },
  );

  it.skip.each(skipped.map((snippet) => [snippet.line, snippet.skipReason] as const))(
    'the snippet at README.md:%i is not checked (%s)',
    () => {},
  );
});
