import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The repository's node_modules (some packages do not export their package.json). */
const nodeModules = resolve(import.meta.dirname, '../../node_modules');

/** `[major, minor, patch]` of a version such as `22.13.0`. */
const parts = (version: string) => version.split('.').map((part) => Number.parseInt(part, 10) || 0);

/**
 * Why a package cannot be tested on this Node.js: its `engines.node` asks for a later one (a `>=x.y.z` range), or
 * undefined when it runs here. A test of a package on a Node.js it does not support proves nothing either way.
 */
export function unsupportedNode(packageName: string): string | undefined {
  const manifest = JSON.parse(readFileSync(resolve(nodeModules, packageName, 'package.json'), 'utf8')) as {
    version?: string;
    engines?: { node?: string };
  };
  const range = manifest.engines?.node ?? '';
  const minimum = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(range.trim())?.[1];
  if (minimum === undefined) return undefined;
  const [have, need] = [parts(process.versions.node), parts(minimum)];
  for (let index = 0; index < 3; index++) {
    const difference = (have[index] ?? 0) - (need[index] ?? 0);
    if (difference > 0) return undefined;
    if (difference < 0)
      return `${packageName} ${manifest.version} needs Node.js ${range}; this is ${process.versions.node}`;
  }
  return undefined;
}
