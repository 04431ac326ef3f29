/** The report a person reads: one line per operation, then what failed and why, then what was not tried. */
import type { ConformanceReport } from './run.js';

const marks = { pass: 'PASS', fail: 'FAIL', not_implemented: 'NOT IMPLEMENTED', skipped: 'SKIPPED' } as const;

export function formatReport(report: ConformanceReport): string {
  const lines = [`Conformance of ${report.baseUrl} to the Form-Funnel API contract`, ''];
  const width = Math.max(...report.operations.map((result) => result.operationId.length));
  for (const result of report.operations) {
    lines.push(`${marks[result.outcome].padEnd(15)} ${result.operationId.padEnd(width)}  ${result.method} ${result.path}`);
    for (const failure of result.failures) lines.push(`    ✗ ${failure.check}: ${failure.message} [${failure.request}]`);
    for (const note of result.notes) lines.push(`    - ${note}`);
  }
  const { summary } = report;
  if (report.notes.length > 0) lines.push('', 'Notes:', ...report.notes.map((note) => `  - ${note}`));
  lines.push(
    '',
    `${summary.pass} passed, ${summary.fail} failed, ${summary.not_implemented} not implemented, ${summary.skipped} skipped, of ${report.operations.length} operation${report.operations.length === 1 ? '' : 's'}`,
  );
  return `${lines.join('\n')}\n`;
}
