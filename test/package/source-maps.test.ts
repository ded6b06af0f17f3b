/**
 * The package ships no source maps (the informative note of MW-204): a map would point at `src/`,
 * which the tarball does not contain, so debuggers and bundlers would warn
 * about missing sources. The built code is not minified and reads as it is.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consumer } from './consumer';

const installed = join(consumer, 'node_modules', 'staged-middleware');
const files = readdirSync(installed, { recursive: true, encoding: 'utf8' });

describe('the packed tarball', () => {
  it('holds no source map', () => {
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
  });

  it('has no built file that refers to a source map', () => {
    const built = files.filter((file) => /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file));
    expect(built.length).toBeGreaterThan(8);
    expect(built.filter((file) => readFileSync(join(installed, file), 'utf8').includes('sourceMappingURL'))).toEqual([]);
  });
});
