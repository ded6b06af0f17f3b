import { readFileSync } from 'node:fs';
import { libraryTarget, runConformance } from '../src/conformance/index';
const target = libraryTarget();
for (const id of process.argv.slice(2)) {
  const raw = JSON.parse(readFileSync(`spec/cases/${id}.json`, 'utf8'));
  const report = await runConformance([raw], target);
  console.log(JSON.stringify(report.cases, null, 1).slice(0, 3000));
}
process.exit(0);
