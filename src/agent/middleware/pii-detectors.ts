/**
 * What `pii()` looks for, and the scan that finds it (MW-274): one
 * pass left to right, trying the detectors in order at each position, the
 * same for a whole text and for a stream, where a position is decided only
 * once the text held back is enough to decide it.
 */

/** The kinds of personal data `pii()` recognises by itself. */
export type PiiType = 'email' | 'card' | 'ip' | 'url' | 'apiKey';

/** A kind of data of your own to find: a regular expression and the most characters a match of it spans. */
export interface PiiPattern {
  /** Its name: a letter, then letters, digits or `_`; shown in upper snake case (`employeeId` as `EMPLOYEE_ID`). */
  readonly name: string;
  /** What a match looks like; its flags but `g` and `y` are kept. */
  readonly pattern: RegExp;
  /** The most characters a match spans; the pattern must decide a match within one more. Default 100. */
  readonly maxLength?: number;
}

/** One detector: where it may start, how far it reads, and the end of its match at a position (-1 for none). */
export interface Detector {
  /** The type name, as options and errors give it. */
  readonly name: string;
  /** The label replacements show (`EMAIL`, `API_KEY`). */
  readonly label: string;
  /** Whether a match may start with this character. */
  readonly starts: (char: string) => boolean;
  /** The most characters it reads from the position on, the match and what decides its end included. */
  readonly reach: number;
  /** A character it never reads past (it reads at most up to the first one after the position), when it has such. */
  readonly stops?: (char: string) => boolean;
  /** The end of the match at `index` of `text` (its character before read as the left boundary), or -1. */
  readonly find: (text: string, index: number) => number;
}

/** One match of the scan. */
export interface PiiMatch {
  /** Where it starts. */
  readonly start: number;
  /** Where it ends (exclusive). */
  readonly end: number;
  /** Its detector. */
  readonly detector: Detector;
}

const LOCAL = /[A-Za-z0-9._%+-]/;
const KEY_CHAR = /[A-Za-z0-9_-]/;
const HEX_OR_COLON = /[0-9A-Fa-f:]/;
const ALPHANUMERIC = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;

/** `/regex/y` at `index`, with `left` refusing the character before: the match's end, or -1. */
function sticky(regex: RegExp, left: RegExp | undefined): (text: string, index: number) => number {
  return (text, index) => {
    if (left !== undefined && index > 0 && left.test(text.charAt(index - 1))) return -1;
    regex.lastIndex = index;
    const match = regex.exec(text);
    return match === null ? -1 : index + match[0].length;
  };
}

const email: Detector = {
  name: 'email',
  label: 'EMAIL',
  starts: (char) => LOCAL.test(char),
  reach: 602,
  stops: (char) => !/[A-Za-z0-9._%+@-]/.test(char),
  find: /*#__PURE__*/ sticky(/[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/y, LOCAL),
};

const findCard = /*#__PURE__*/ sticky(/\d(?:[ -]?\d){12,18}(?!\d)/y, DIGIT);
const card: Detector = {
  name: 'card',
  label: 'CARD',
  starts: (char) => DIGIT.test(char),
  reach: 38,
  stops: (char) => !/[0-9 -]/.test(char),
  find: (text, index) => {
    const end = findCard(text, index);
    return end !== -1 && luhn(text.slice(index, end).replace(/[ -]/g, '')) ? end : -1;
  },
};

/** The Luhn checksum of a card number: every second digit from the right doubled. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits.charAt(digits.length - 1 - index));
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

// Written out (each octet 0 to 255) rather than built when the module loads, so a bundle that does not use it drops it.
const findIpv4 = /*#__PURE__*/ sticky(
  /(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\.?\d)/y,
  /[0-9.]/,
);

/** An IPv6 address in its text form: eight groups, or fewer around one `::`; an embedded IPv4 tail is not read. */
function isIpv6(candidate: string): boolean {
  if (!/[0-9A-Fa-f]/.test(candidate)) return false;
  const halves = candidate.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  if (!groups.every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

const ip: Detector = {
  name: 'ip',
  label: 'IP',
  starts: (char) => HEX_OR_COLON.test(char),
  reach: 41,
  stops: (char) => !/[0-9A-Fa-f:.]/.test(char),
  find: (text, index) => {
    const v4 = DIGIT.test(text.charAt(index)) ? findIpv4(text, index) : -1;
    if (v4 !== -1) return v4;
    if (index > 0 && /[0-9A-Za-z_:.]/.test(text.charAt(index - 1))) return -1;
    let end = index;
    while (end < text.length && end - index <= 39 && HEX_OR_COLON.test(text.charAt(end))) end++;
    if (end - index > 39 || ALPHANUMERIC.test(text.charAt(end)) || text.charAt(end) === '.') return -1;
    return isIpv6(text.slice(index, end)) ? end : -1;
  },
};

const findUrl = /*#__PURE__*/ sticky(/(?:https?:\/\/|www\.)[^\s<>"'`]{1,2040}/iy, /[A-Za-z0-9]/);
const url: Detector = {
  name: 'url',
  label: 'URL',
  starts: (char) => /[hHwW]/.test(char),
  reach: 2048,
  stops: (char) => /[\s<>"'`]/.test(char),
  find: (text, index) => {
    let end = findUrl(text, index);
    if (end === -1) return -1;
    // Closing punctuation of the sentence around a link is not part of it.
    while (/[.,;:!?)\]}]/.test(text.charAt(end - 1))) end--;
    return /^(?:https?:\/\/|www\.)$/i.test(text.slice(index, end)) ? -1 : end;
  },
};

const apiKey: Detector = {
  name: 'apiKey',
  label: 'API_KEY',
  starts: (char) => /[sAgx]/.test(char),
  reach: 262,
  stops: (char) => !KEY_CHAR.test(char),
  find: /*#__PURE__*/ sticky(
    /(?:sk-[A-Za-z0-9_-]{20,200}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,255}|xox[abprs]-[A-Za-z0-9-]{10,200}|AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])/y,
    KEY_CHAR,
  ),
};

/** The built-in detectors in the order they are tried at one position. */
export const BUILT_IN_DETECTORS: readonly Detector[] = /*#__PURE__*/ Object.freeze([url, email, apiKey, card, ip]);

/** The built-in type names, in the order they are tried. */
export const PII_TYPES: readonly PiiType[] = /*#__PURE__*/ Object.freeze(['url', 'email', 'apiKey', 'card', 'ip']);

/** The detector of a custom pattern: tried at every position, reading `maxLength + 1` characters. */
export function customDetector(pattern: PiiPattern, maxLength: number): Detector {
  const flags = pattern.pattern.flags.replace(/[gy]/g, '');
  const regex = new RegExp(pattern.pattern.source, `${flags}y`);
  return {
    name: pattern.name,
    label: pattern.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase(),
    starts: () => true,
    reach: maxLength + 1,
    find: (text, index) => {
      regex.lastIndex = index;
      const match = regex.exec(text);
      const length = match === null ? 0 : match[0].length;
      return length > 0 && length <= maxLength ? index + length : -1;
    },
  };
}

/** Whether every detector's answer at `index` is settled by the text there is: the text after it cannot change it. */
function decided(detectors: readonly Detector[], text: string, index: number): boolean {
  const char = text.charAt(index);
  return detectors.every((detector) => {
    if (!detector.starts(char) || index + detector.reach <= text.length) return true;
    const { stops } = detector;
    if (stops === undefined) return false;
    for (let at = index; at < text.length; at++) if (stops(text.charAt(at))) return true;
    return false;
  });
}

/**
 * Scans `text` from `start` (the characters before it are read only as the
 * left boundary): the matches, leftmost first, the first detector in order
 * winning at a position, none overlapping; and where the scan stopped, which
 * is the end of the text when it is `final`, else the first position whose
 * answer the text after it could still change.
 */
export function scan(detectors: readonly Detector[], text: string, start: number, final: boolean): { matches: PiiMatch[]; end: number } {
  const matches: PiiMatch[] = [];
  let index = start;
  while (index < text.length) {
    if (!final && !decided(detectors, text, index)) break;
    const char = text.charAt(index);
    let found: PiiMatch | undefined;
    for (const detector of detectors) {
      if (!detector.starts(char)) continue;
      const end = detector.find(text, index);
      if (end > index) {
        found = { start: index, end, detector };
        break;
      }
    }
    if (found === undefined) {
      index++;
      continue;
    }
    matches.push(found);
    index = found.end;
  }
  return { matches, end: Math.min(index, text.length) };
}
