// The shipped conformance cases run through the programmatic API, as a program of a user's does: the one file the
// package ships (`staged-middleware/conformance/cases.json`), read with require as a JSON module, and its chain cases
// run against the installed library. Prints how many cases the file holds and the run's summary, as JSON.
import { createRequire } from 'node:module';
import { libraryTarget, runConformance } from 'staged-middleware/conformance';

const cases = createRequire(import.meta.url)('staged-middleware/conformance/cases.json');
const report = await runConformance(cases, libraryTarget(), { kinds: ['chain'] });
console.log(JSON.stringify({ cases: cases.length, summary: report.summary }));
