/**
 * The handler vocabulary of the agent cases is specified in `spec/README.md`
 * ("The handler vocabulary"), so that a port can implement it from the text:
 * every `do` value the case schema allows has its entry there, every entry
 * names a handler the schema allows, and every handler a shipped case uses
 * is described.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handler, stageName } from '../../conformance/cases/agent-handlers';
import { caseFiles, specDirectory } from './case-files';

const README = readFileSync(join(specDirectory, 'README.md'), 'utf8');
const PHASES = handler.shape.phase.options as readonly string[];
const DO_VALUES = handler.shape.do.options as readonly string[];
const STAGES = stageName.options as readonly string[];

/** The text of the section, up to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start === -1) return '';
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(/\n#{2,3} /);
  return end === -1 ? rest : rest.slice(0, end);
}

/** The keys an entry names: the backticked words a list item starts with (`a`, `b`: ...). */
function entryKeys(text: string): string[] {
  return text.split('\n').flatMap((line) => {
    const lead = /^- ((?:`[^`]+`(?:, )?)+)/.exec(line)?.[1];
    return lead === undefined ? [] : [...lead.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  });
}

/** `{ stage, phase, do }` of a key, `stage` being `<stage>` for an entry of every stage; undefined when it is no key. */
function parseKey(key: string): { stage: string; phase: string; do: string } | undefined {
  const parts = key.split('.');
  if (parts.length !== 3) return undefined;
  const [stage, phase, name] = parts as [string, string, string];
  return { stage, phase, do: name };
}

/** Every `{ stage, phase, do }` object anywhere in a case: its handlers, the hooks of its bundles, its AI SDK middleware. */
function handlersIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(handlersIn);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own =
    typeof record.stage === 'string' && typeof record.phase === 'string' && typeof record.do === 'string'
      ? [`${record.stage}.${record.phase}.${record.do}`]
      : [];
  return [...own, ...Object.values(record).flatMap(handlersIn)];
}

const entries = entryKeys(section(README, '### The handler vocabulary'));

/** Whether an entry describes the handler `stage.phase.do`. */
function described(key: string): boolean {
  const wanted = parseKey(key);
  return entries.some((entry) => {
    const parsed = parseKey(entry);
    return (
      parsed !== undefined &&
      (parsed.stage === '<stage>' || parsed.stage === wanted?.stage) &&
      parsed.phase === wanted?.phase &&
      parsed.do === wanted.do
    );
  });
}

describe('spec/README.md', () => {
  describe('the handler vocabulary', () => {
    it('has entries', () => {
      expect(entries.length).toBeGreaterThan(DO_VALUES.length);
    });

    it('has an entry for every do value the agent case schema allows', () => {
      const documented = new Set(entries.map((entry) => parseKey(entry)?.do));
      expect(DO_VALUES.filter((value) => !documented.has(value))).toEqual([]);
    });

    it('names only stages, phases and do values the schema allows', () => {
      const wrong = entries.filter((entry) => {
        const parsed = parseKey(entry);
        return (
          parsed === undefined ||
          !(parsed.stage === '<stage>' || STAGES.includes(parsed.stage)) ||
          !PHASES.includes(parsed.phase) ||
          !DO_VALUES.includes(parsed.do)
        );
      });
      expect(wrong).toEqual([]);
    });

    it('describes every handler the shipped cases use', () => {
      const used = [...new Set(caseFiles.flatMap(({ raw }) => (raw.kind === 'agent' ? handlersIn(raw) : [])))].sort();
      expect(used.length).toBeGreaterThan(0);
      expect(used.filter((key) => !described(key))).toEqual([]);
    });
  });
});
