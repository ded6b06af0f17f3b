/**
 * Every link of the README works where users read it, on the npm website
 * and in `node_modules`, without a repository to resolve relative links
 * against: a link to a file of the package is either relative to
 * the package root, or absolute to that file of this very version of the
 * published package; either way the packed tarball must ship the file. A
 * link to a section names a heading of the README (the informative note of
 * MW-204).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readme, root } from '../readme-blocks';
import { consumer } from './consumer';

const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/** Where the published package's files are served, file by file. */
const published = `https://unpkg.com/${name}@`;

/** Every link target of the README, code blocks left out. */
const links = [...readme.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);

/** The anchors GitHub and npm give the README's headings. */
const anchors = new Set(
  [...readme.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map(
    (match) =>
      `#${(match[1] as string)
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s-]/gu, '')
        .trim()
        .replace(/\s/g, '-')}`,
  ),
);

/** Where a link to a file of the package points inside the package (the file, without a section), or undefined for an external link. */
function packagePath(link: string): string | undefined {
  if (link.startsWith(published))
    return link
      .slice(published.length)
      .replace(/^[^/]*\//, '')
      .replace(/#.*$/, '');
  if (/^[a-z]+:/i.test(link) || link.startsWith('#')) return undefined;
  return link.replace(/#.*$/, '');
}

describe('README links', () => {
  it('are found', () => {
    expect(links.length).toBeGreaterThan(5);
  });

  it('to files of the package name the version being packed', () => {
    const versions = links.filter((link) => link.startsWith(published)).map((link) => link.slice(published.length).split('/')[0]);
    expect(versions.filter((linked) => linked !== version)).toEqual([]);
  });

  it('to files of the package point to files the packed tarball ships', () => {
    const installed = join(consumer, 'node_modules', name);
    const missing = links.map(packagePath).filter((path): path is string => path !== undefined && !existsSync(join(installed, path)));
    expect(missing).toEqual([]);
  });

  it('to sections name headings of the README', () => {
    expect(links.filter((link) => link.startsWith('#') && !anchors.has(link))).toEqual([]);
  });
});
