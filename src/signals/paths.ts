/**
 * Path signals: which tokens of a command or argument are file paths, and how paths are normalized.
 * Recognition is by known file extensions, known extensionless file names, or slash-separated directory shapes,
 * so prose such as `e.g.`, versions (`1.2.3`), fractions (`1/2`), URLs and dotted code (`np.array`) stay out.
 */

/** File extensions that make a token a file name (lowercase, without the dot). */
const KNOWN_EXTENSIONS = new Set(
  (
    'py pyi pyx pxd ipynb ts tsx js jsx mjs cjs mts cts json jsonl json5 yaml yml toml ini cfg conf md mdx rst txt adoc ' +
    'tex html htm css scss sass less vue svelte astro c h cc cpp cxx hpp hh cs fs java kt kts scala groovy go rs rb erb ' +
    'php swift mm sh bash zsh fish ps1 bat cmd sql graphql gql proto xml csv tsv lock log patch diff gradle properties mk ' +
    'cmake tf hcl lua pl pm jl dart ex exs erl hrl clj cljs elm hs ml mli nim zig sol pyc so dll bak orig rej tmp out ' +
    'gz tgz zip tar whl png jpg jpeg gif svg ico pdf dockerfile env'
  ).split(' '),
);

/** File names without an extension that are still clearly files. */
const KNOWN_NAMES = new Set(
  (
    'Makefile makefile GNUmakefile Dockerfile Containerfile README LICENSE LICENCE AUTHORS CHANGELOG CHANGES NEWS ' +
    'CONTRIBUTING NOTICE COPYING INSTALL MANIFEST Gemfile Rakefile Procfile Jenkinsfile Vagrantfile CODEOWNERS Pipfile ' +
    '.gitignore .gitattributes .dockerignore .npmrc .nvmrc .env .editorconfig .eslintrc .prettierrc .babelrc .flake8 ' +
    '.pylintrc .coveragerc .bashrc .zshrc .profile'
  ).split(' '),
);

/** Slash-separated words that are prose or MIME types rather than directories. */
const NOT_DIRECTORIES = new Set(
  (
    'and/or either/or input/output read/write yes/no true/false on/off client/server key/value get/set he/she ' +
    'his/her w/o n/a i/o pass/fail before/after start/end open/close'
  ).split(' '),
);
const MIME_HEADS = new Set(['application', 'text', 'image', 'audio', 'video', 'multipart', 'font']);

/** Removes quoting, brackets and trailing punctuation around a token, and `:line`/`::node` suffixes. */
export function cleanToken(token: string): string {
  let s = token.trim();
  s = s.replace(/^[`'"([{<]+/, '').replace(/[`'")\]}>,;!?]+$/, '');
  s = s.replace(/\.+$/, (dots) => (s.endsWith('/..') || s === '..' ? dots : ''));
  s = s.replace(/::.*$/, '').replace(/#L?\d+(?:-L?\d+)?$/, '');
  s = s.replace(/:\d+(?::\d+)?:?$/, '').replace(/:$/, '');
  return s;
}

/** True for URLs, e-mail addresses, globs, variables and other shapes that are never a concrete path. */
function isExcluded(s: string): boolean {
  return (
    s.length === 0 ||
    s.length > 300 ||
    /:\/\/|^www\.|^mailto:|^[\w.+-]+@[\w-]+\.|^-/.test(s) ||
    /[\s*?[\]{}$<>|=;'"`(),\\]/.test(s) ||
    /^~?\/?$/.test(s)
  );
}

/** True when the last segment ends with a known extension (`a.py`, `a.py.bak`) or is a known file name. */
export function hasFileName(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (KNOWN_NAMES.has(base)) return true;
  const match = /^[\w@+-][\w.@+-]*?\.([A-Za-z][A-Za-z0-9]{0,9})(?:\.([A-Za-z][A-Za-z0-9]{0,9}))?$/.exec(base);
  if (!match) return false;
  const first = (match[1] ?? '').toLowerCase();
  const second = (match[2] ?? '').toLowerCase();
  return match[2] === undefined
    ? KNOWN_EXTENSIONS.has(first)
    : KNOWN_EXTENSIONS.has(first) || KNOWN_EXTENSIONS.has(second);
}

/** Strict test for a token found anywhere: a file name with a known extension, or a directory-like slash path. */
export function looksLikePath(token: string): string | undefined {
  const s = cleanToken(token);
  if (isExcluded(s)) return undefined;
  const segments = s.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => !/^(?:\.{1,2}|[\w@+.-]+)$/.test(segment))) return undefined;
  if (hasFileName(s)) return s;
  if (!s.includes('/')) return undefined;
  const words = segments.filter((segment) => segment !== '.' && segment !== '..');
  if (words.length === 0 || words.some((segment) => /^[\d.,-]+$/.test(segment))) return undefined;
  if (NOT_DIRECTORIES.has(s.toLowerCase()) || MIME_HEADS.has((words[0] ?? '').toLowerCase())) return undefined;
  const anchored = /^(?:\/|\.\.?\/|~\/)/.test(s);
  if (!anchored && (words.length < 2 || words.some((segment) => segment.length < 2))) return undefined;
  return s;
}

/** Lenient test for a word in a file position (`cat X`, `> X`, `sed -i ... X`): any plain file-like word. */
export function fileOperand(token: string): string | undefined {
  const s = cleanToken(token);
  if (isExcluded(s) || s === '-' || /^\/dev\//.test(s) || /^[\d.,:/-]+$/.test(s)) return undefined;
  if (!/^[\w@+.~/-]+$/.test(s) || !/[A-Za-z_]/.test(s)) return undefined;
  return s;
}

/** Where relative and absolute paths of a command are anchored (`cd X && ...`). */
export interface PathContext {
  /** Absolute repository root learned from the transcript: paths below it are named relative to it. */
  repository?: string;
  /** Absolute directory outside the repository that a `cd` moved to: paths below it are named relative to it. */
  root?: string;
  /** Directory, relative to the root or else the repository, that relative paths are in. */
  cwd?: string;
}

/** Normalizes a path: drops `./`, the `cd` root or repository prefix, `x/../` steps and trailing slashes. */
export function normalizePath(path: string, context: PathContext = {}): string {
  let s = path.replace(/\/{2,}/g, '/');
  if (s.startsWith('/')) {
    for (const root of [context.root, context.repository]) {
      if (root && root !== '/' && (s === root || s.startsWith(`${root}/`))) {
        s = s.slice(root.length + 1);
        break;
      }
    }
  } else if (context.cwd && !s.startsWith('~')) {
    s = `${context.cwd}/${s}`;
  }
  const absolute = s.startsWith('/');
  const out: string[] = [];
  for (const segment of s.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(segment);
  }
  const joined = out.join('/');
  return absolute ? `/${joined}` : joined;
}

/** Leading directories of a path (default two), e.g. 'src/billing' for 'src/billing/tax.ts'; '.' for a top-level file. */
export function moduleOf(path: string, depth = 2): string {
  const normalized = normalizePath(path);
  const absolute = normalized.startsWith('/');
  const segments = normalized.split('/').filter((segment) => segment !== '');
  const directories = hasFileName(normalized) || !normalized.includes('/') ? segments.slice(0, -1) : segments;
  const kept = directories.slice(0, Math.max(0, depth));
  if (kept.length === 0) return absolute ? '/' : '.';
  return `${absolute ? '/' : ''}${kept.join('/')}`;
}

/** Documentation files: Markdown, reStructuredText, plain text docs, docs/ folders, README and CHANGELOG files. */
export function isDocPath(path: string): boolean {
  return (
    /\.(?:md|mdx|rst|adoc|txt)$/i.test(path) ||
    /(?:^|\/)(?:docs?|documentation|changelog|changes)\//i.test(path) ||
    /(?:^|\/)(?:README|CHANGELOG|CHANGES|NEWS|AUTHORS|CONTRIBUTING)(?:\.\w+)?$/i.test(path)
  );
}

/** Scratch scripts an agent writes to reproduce or inspect a problem (reproduce_issue.py, debug.py, check_x.py). */
export function isScratchDebugPath(path: string): boolean {
  return /(?:^|\/)(?:reproduce|repro|debug|check|inspect|investigate)[\w.-]*\.\w+$/i.test(path);
}

/** Test files and scratch verification scripts (test_x.py, x_test.go, x.test.ts, x.spec.js, tests/, verify_x.py). */
export function isTestPath(path: string): boolean {
  return (
    /(?:^|\/)(?:test_[\w.-]*|[\w.-]*_tests?\.\w+|[\w.-]+\.(?:test|spec)\.\w+|verify[\w.-]*\.\w+|tests?\.py|conftest\.py)$/i.test(
      path,
    ) || /(?:^|\/)(?:tests?|testing|__tests__|spec)\//.test(path)
  );
}
