import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const OPTIONS = fileURLToPath(new URL('../../src/options/', import.meta.url));
const ENTRIES = [
  'compression-options.ts',
  'adapter-options.ts',
  'call-options.ts',
  'extractive-summarizer-options.ts',
  'merge-options.ts',
  'tool-options.ts',
];

/** The declaration files TypeScript writes for the options schemas, as the published package carries them. */
function emittedDeclarations(): Map<string, string> {
  const files = new Map<string, string>();
  const program = ts.createProgram(
    ENTRIES.map((name) => OPTIONS + name),
    {
      declaration: true,
      emitDeclarationOnly: true,
      strict: true,
      skipLibCheck: true,
      noCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      outDir: '/declarations',
    },
  );
  program.emit(undefined, (name, text) => {
    if (name.startsWith('/declarations/options/')) files.set(name.slice('/declarations/options/'.length), text);
  });
  return files;
}

describe('the published declarations of the options', () => {
  it('keep the JSDoc of every option, which editors show on hover', { timeout: 60_000 }, () => {
    const declarations = emittedDeclarations();
    let options = 0;
    for (const [name, text] of declarations) {
      const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        // an option: a key of a shape, typed by its zod schema
        if (ts.isPropertySignature(node) && node.type?.getText(source).startsWith('z.')) {
          options++;
          expect(ts.getJSDocCommentsAndTags(node).length, `${name}: ${node.getText(source)}`).toBeGreaterThan(0);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    // every schema is declared with the shape it is built from, so its keys' docs are the shape's
    expect(declarations.get('compression-options.d.ts')).toContain(
      'CompressionOptionsSchema: StrictObject<typeof compressionOptionsShape>',
    );
    expect(options).toBeGreaterThan(60);
  });
});
