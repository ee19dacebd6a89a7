/**
 * The output formats of the generated agent's tools, none of them a format of the recorded runs: pretty-printed JSON
 * records, psql-style tables, HTML pages, directory listings with kinds and sizes, search hits grouped by file, and
 * Python tracebacks.
 */

/** A psql-style table: a header, a rule, right-padded cells, and the row count. */
export function sqlTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    ` ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')}`.trimEnd();
  const rule = widths.map((width) => '-'.repeat(width + 2)).join('+');
  return [line(columns), rule, ...rows.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`].join('\n');
}

/** An HTML page of an internal web tool: head, navigation, a heading, the given body and a footer. */
export function htmlPage(title: string, body: string, build: string): string {
  const nav = ['Overview', 'Services', 'Incidents', 'Deploys', 'Runbooks', 'Settings']
    .map((item) => `      <li><a href="/${item.toLowerCase()}">${item}</a></li>`)
    .join('\n');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '  <meta charset="utf-8">',
    `  <title>${title} · Operations Console</title>`,
    `  <link rel="stylesheet" href="/static/console.css?v=${build}">`,
    `  <script defer src="/static/console.js?v=${build}"></script>`,
    '</head>',
    '<body class="console">',
    '  <nav class="sidebar">',
    '    <ul>',
    nav,
    '    </ul>',
    '  </nav>',
    '  <main>',
    `    <h1>${title}</h1>`,
    body,
    '  </main>',
    `  <footer>Operations Console build ${build} · <a href="/help">Help</a></footer>`,
    '</body>',
    '</html>',
  ].join('\n');
}

/** An HTML table with a header row. */
export function htmlTable(columns: readonly string[], rows: readonly (readonly string[])[], className: string): string {
  const head = columns.map((column) => `<th>${column}</th>`).join('');
  const body = rows.map((row) => `      <tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`);
  return [`    <table class="${className}">`, `      <tr>${head}</tr>`, ...body, '    </table>'].join('\n');
}

/** One entry of a directory listing. */
export interface ListingEntry {
  readonly name: string;
  readonly directory: boolean;
  readonly size: string;
  readonly modified: string;
}

/** A directory listing: the folder, its entry count, then a line per entry with its kind, size and date. */
export function directoryListing(path: string, entries: readonly ListingEntry[]): string {
  const width = Math.max(...entries.map((entry) => entry.name.length + (entry.directory ? 1 : 0)));
  const lines = entries.map((entry) => {
    const name = entry.directory ? `${entry.name}/` : entry.name;
    return `  ${entry.directory ? '[dir ]' : '[file]'}  ${name.padEnd(width)}  ${entry.size.padStart(8)}  ${entry.modified}`;
  });
  return [`Directory: ${path}  (${entries.length} entries)`, ...lines].join('\n');
}

/** One hit of a text search. */
export interface SearchHit {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

/** Search hits grouped by file: the file and its hit count, then `line │ text` for each hit. */
export function searchHits(pattern: string, hits: readonly SearchHit[]): string {
  if (hits.length === 0) return `No matches for /${pattern}/.`;
  const files = [...new Set(hits.map((hit) => hit.path))];
  const blocks = files.map((file) => {
    const ofFile = hits.filter((hit) => hit.path === file);
    const lines = ofFile.map((hit) => `  ${String(hit.line).padStart(5)} │ ${hit.text}`);
    return [`${file} (${ofFile.length} match${ofFile.length === 1 ? '' : 'es'})`, ...lines].join('\n');
  });
  return [`${hits.length} matches in ${files.length} files for /${pattern}/`, '', blocks.join('\n\n')].join('\n');
}

/** One frame of a Python traceback. */
export interface Frame {
  readonly file: string;
  readonly line: number;
  readonly functionName: string;
  readonly code: string;
}

/** A Python traceback: the frames, innermost last, and the exception line. */
export function pythonTraceback(frames: readonly Frame[], exception: string): string {
  const lines = frames.flatMap((frame) => [
    `  File "${frame.file}", line ${frame.line}, in ${frame.functionName}`,
    `    ${frame.code}`,
  ]);
  return ['Traceback (most recent call last):', ...lines, exception].join('\n');
}

/** Pretty-printed JSON, as an HTTP API or a record lookup answers. */
export const prettyJson = (value: unknown): string => JSON.stringify(value, null, 2);
