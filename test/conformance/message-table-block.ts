/**
 * Where `spec/README.md` holds the generated table of the protocol's
 * messages: between two comments, so that the export script can rewrite it
 * and a test can compare it.
 */

/** The comment before the table. */
export const TABLE_START = '<!-- messages:start (generated: npx tsx test/conformance/export-schema.ts) -->';
/** The comment after the table. */
export const TABLE_END = '<!-- messages:end -->';

/** The table between the comments, or undefined when the README has no such block. */
export function messageTableIn(readme: string): string | undefined {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end < start) return undefined;
  return readme.slice(start + TABLE_START.length, end).trim();
}

/** The README with `table` between the comments. */
export function withMessageTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start === -1 || end < start)
    throw new Error(`spec/README.md needs the comments ${TABLE_START} and ${TABLE_END} around the table of messages.`);
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${readme.slice(end)}`;
}
