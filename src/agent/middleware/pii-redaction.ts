/**
 * What `pii()` does with what it finds (MW-275, MW-276): the strategies,
 * a whole text redacted at once, and a stream of text deltas redacted as it
 * comes, holding back only the tail whose answer the next delta could still
 * change, so any split of a text gives the text a whole redaction gives.
 */
import { scan, type Detector, type PiiMatch } from './pii-detectors';

/** What `pii()` does with a match: replace it with its label, mask it, replace it with a hash, or refuse the text. */
export type PiiStrategy = 'redact' | 'mask' | 'hash' | 'block';

/** Called with the match a `block` strategy found; throws. */
export type PiiBlocked = (detector: Detector) => never;

/** Redacts texts with one set of detectors and one strategy. */
export interface Redaction {
  /** The detectors, in the order they are tried. */
  readonly detectors: readonly Detector[];
  /** The strategy. */
  readonly strategy: PiiStrategy;
  /** Throws for a match under `block`. */
  readonly blocked: PiiBlocked;
}

/** The replacement of one match. */
async function replacement(redaction: Redaction, text: string, match: PiiMatch): Promise<string> {
  const found = text.slice(match.start, match.end);
  const { label } = match.detector;
  switch (redaction.strategy) {
    case 'redact':
      return `[REDACTED_${label}]`;
    case 'mask':
      return found.length <= 4 ? '*'.repeat(found.length) : '*'.repeat(found.length - 4) + found.slice(-4);
    case 'hash':
      return `[${label}_HASH:${(await sha256Hex(found)).slice(0, 8)}]`;
    case 'block':
      return redaction.blocked(match.detector);
  }
}

/** The SHA-256 of the UTF-8 text, in hexadecimal, by the Web Crypto API (Node.js, browsers, edge runtimes). */
async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** `text[from, to)` with its matches replaced. */
async function replaced(redaction: Redaction, text: string, from: number, to: number, matches: readonly PiiMatch[]): Promise<string> {
  let out = '';
  let at = from;
  for (const match of matches) {
    out += text.slice(at, match.start) + (await replacement(redaction, text, match));
    at = match.end;
  }
  return out + text.slice(at, to);
}

/** A whole text, redacted. */
export async function redactText(redaction: Redaction, text: string): Promise<string> {
  const { matches } = scan(redaction.detectors, text, 0, true);
  return matches.length === 0 ? text : replaced(redaction, text, 0, text.length, matches);
}

/**
 * One text block arriving in deltas. `push` returns what can be let out
 * now: the redacted text up to the first position the scan could not yet
 * decide; the rest is held back. `flush` ends the block and returns the
 * rest, redacted.
 */
export class StreamRedaction {
  /** The character before the held text (the left boundary of the next scan), `''` at the start of the block. */
  private before = '';
  private held = '';

  constructor(private readonly redaction: Redaction) {}

  /** Adds a delta; returns the redacted text it lets out (possibly `''`). */
  push(delta: string): Promise<string> {
    return this.take(this.held + delta, false);
  }

  /** Ends the block; returns the rest of it, redacted. */
  flush(): Promise<string> {
    return this.take(this.held, true);
  }

  /** Forgets the held text: what a failed attempt held never comes out. */
  drop(): void {
    this.before = '';
    this.held = '';
  }

  private async take(pending: string, final: boolean): Promise<string> {
    const text = this.before + pending;
    const start = this.before.length;
    const { matches, end } = scan(this.redaction.detectors, text, start, final);
    this.held = text.slice(end);
    this.before = final ? '' : end > 0 ? text.charAt(end - 1) : '';
    if (final) this.held = '';
    return replaced(this.redaction, text, start, end, matches);
  }
}
